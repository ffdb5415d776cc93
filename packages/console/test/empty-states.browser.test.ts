/**
 * Empty lists say what is missing and the next step, in a real browser: a create button or link for who may create,
 * a way back from a search that found nothing, a sentence otherwise; in English and Chinese.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const POSTS_PAGE = '/console/resources/content.svc.run/v1alpha1/posts';

describe.skipIf(!browserAvailable)('empty states in Chromium', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole();
  }, 120_000);
  afterAll(() => c?.close());

  it('an empty resource list offers to create the first object, or to clear the filters', async () => {
    const { page } = await c.signedIn(TEST_ADMIN, POSTS_PAGE);
    await page.getByText('No posts yet.').waitFor();
    await c.shot(page, 'empty-resource-list');
    expect(await c.seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Create the first Post' }).click();
    await page.getByRole('heading', { name: 'New Post' }).waitFor();

    await page.goto(`${c.base}${POSTS_PAGE}?labelSelector=team%3Da`);
    await page.getByText('No posts match.').waitFor();
    expect(await page.getByRole('link', { name: 'Create the first Post' }).count()).toBe(0);
    // The filter form's Clear and the empty state's: the latter is the table's.
    await page.locator('main table').getByRole('button', { name: 'Clear' }).click();
    await page.getByText('No posts yet.').waitFor();
  });

  it('in Chinese too', async () => {
    const { page } = await c.visit({ locale: 'zh-CN' });
    await page.goto(`${c.base}${POSTS_PAGE}`);
    await page.getByLabel('用户名').fill(TEST_ADMIN.username);
    await page.getByLabel('密码', { exact: true }).fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByText('还没有 posts。').waitFor();
    await page.getByRole('link', { name: '创建第一个 Post' }).waitFor();
  });

  it("a user search that finds no one says to search again; the Persons page's leads back to everyone", async () => {
    const { page } = await c.signedIn(TEST_ADMIN, '/console/users');
    await page.getByLabel('Search users').fill('nobody-by-this-name');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No users found.').waitFor();
    await page.getByText('Try another search, or clear it to see everyone.').waitFor();

    // No posts yet: the empty table's own button writes the first one.
    await page.goto(`${c.base}/console/posts`);
    await page.getByText('No posts yet.').waitFor();
    await page.getByRole('button', { name: 'Write the first post' }).click();
    await page.getByRole('dialog', { name: 'New post' }).waitFor();

    await page.goto(`${c.base}/console/persons`);
    await page.getByLabel('Exact name').fill('Nobody');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No persons match.').waitFor();
    expect(await c.seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Show all persons' }).click();
    // The plugin's three example persons are back.
    await expect.poll(() => page.locator('main table tbody tr').count()).toBe(3);
    expect(await page.getByText('No persons match.').count()).toBe(0);
  });
});
