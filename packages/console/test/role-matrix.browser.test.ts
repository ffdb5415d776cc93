/**
 * What each kind of user sees, all in one place (issue 16's "exactly which menus, pages and buttons"): the super
 * administrator, an editor, a contributor and a user holding only the people plugin's view template. For each, the
 * console's and the personal center's menus, every console page reached by its URL (its page or "No permission"),
 * and the write buttons on the pages they may open. Expected lists are written out by hand.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const EDITOR = { username: 'edith', password: 'edith-password-1' };
const CONTRIBUTOR = { username: 'conrad', password: 'conrad-password-1' };
const VIEWER = { username: 'violet', password: 'violet-password-1' };

/** Console pages by URL, and the level-1 heading each shows to a user who may open it. */
const PAGES: Record<string, string> = {
  '/console/persons': 'Persons',
  '/console/posts': 'Posts',
  '/console/users': 'Users',
  '/console/roles': 'Roles',
  '/console/access-review': 'Access review',
  '/console/plugins': 'Plugins',
  '/console/audit': 'Audit log',
  '/console/resources': 'Resources',
};

const menuLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

/** The pages of PAGES this user may open, in PAGES' order: each URL shows its heading or "No permission". */
async function openablePages(page: Page, base: string): Promise<string[]> {
  const open: string[] = [];
  for (const [url, heading] of Object.entries(PAGES)) {
    await page.goto(`${base}${url}`);
    const allowed = page.getByRole('heading', { name: heading, level: 1, exact: true });
    const refused = page.getByRole('heading', { name: 'No permission' });
    await allowed.or(refused).first().waitFor();
    if (await allowed.isVisible()) open.push(heading);
  }
  return open;
}

/** Whether a button with exactly this name is on the page once its table has loaded. */
async function hasButton(page: Page, url: string, ready: string, name: string): Promise<boolean> {
  await page.goto(url);
  await page.getByRole('table', { name: ready }).getByRole('row').nth(1).waitFor();
  // A row's buttons follow the caller's permissions, which may arrive just after the rows: a button still missing
  // after 2 s is absent.
  return page
    .getByRole('button', { name, exact: true })
    .first()
    .waitFor({ timeout: 2000 })
    .then(
      () => true,
      () => false,
    );
}

describe.skipIf(!browserAvailable)('who sees what in the console', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole();
    await c.createUser(EDITOR, ['editor']);
    await c.createUser(CONTRIBUTOR, ['contributor']);
    await c.createUser(VIEWER, ['people-role-view-persons']);
    // A post, so the posts tables have a row.
    const post = await c.t.request('POST', '/apis/content.svc.run/v1alpha1/posts', {
      apiVersion: 'content.svc.run/v1alpha1',
      kind: 'Post',
      metadata: { name: 'hello' },
      spec: { title: 'Hello', owner: EDITOR.username },
    });
    expect(post.status).toBe(201);
  }, 60_000);
  afterAll(() => c?.close());

  it('gives the super administrator every menu entry, every page and the write buttons', async () => {
    const { page } = await c.signedIn(TEST_ADMIN);
    await expect
      .poll(() => menuLinks(page))
      .toEqual(['Persons', 'Posts', 'Users', 'Roles', 'Access review', 'Plugins', 'Audit log', 'Resources']);
    expect(await openablePages(page, c.base)).toEqual(Object.values(PAGES));
    expect(await hasButton(page, `${c.base}/console/persons`, 'Persons', 'New person')).toBe(true);
    expect(await hasButton(page, `${c.base}/console/users`, 'Users', 'New user')).toBe(true);
    await page.goto(`${c.base}/uc/`);
    await expect
      .poll(() => menuLinks(page))
      .toEqual(['Profile', 'Password', 'Access tokens', 'My posts', 'My persons']);
  });

  it('gives an editor Posts and Resources, and refuses the system pages', async () => {
    const { page } = await c.signedIn(EDITOR);
    await expect.poll(() => menuLinks(page)).toEqual(['Posts', 'Resources']);
    expect(await openablePages(page, c.base)).toEqual(['Posts', 'Resources']);
    expect(await hasButton(page, `${c.base}/console/posts`, 'Posts', 'Publish Hello')).toBe(true);
    expect(await hasButton(page, `${c.base}/console/posts`, 'Posts', 'Delete Hello')).toBe(true);
    await page.goto(`${c.base}/uc/`);
    await expect.poll(() => menuLinks(page)).toEqual(['Profile', 'Password', 'Access tokens', 'My posts']);
  });

  it('gives a contributor no console page, and "My posts" without publishing in the personal center', async () => {
    const { page } = await c.signedIn(CONTRIBUTOR);
    await page.getByRole('navigation', { name: 'Main' }).getByText('No pages for your roles yet.').waitFor();
    expect(await menuLinks(page)).toEqual([]);
    expect(await openablePages(page, c.base)).toEqual([]);
    await page.goto(`${c.base}/uc/`);
    await expect.poll(() => menuLinks(page)).toEqual(['Profile', 'Password', 'Access tokens', 'My posts']);
    await page.goto(`${c.base}/uc/posts`);
    await page.getByRole('button', { name: 'New post' }).click();
    await page.getByRole('dialog', { name: 'New post' }).getByLabel('Title').fill('Mine');
    await page.getByRole('dialog', { name: 'New post' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('table', { name: 'My posts' }).getByRole('cell', { name: 'Mine', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Edit Mine' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Publish Mine' }).count()).toBe(0);
  });

  it('gives a persons viewer Persons and Resources, read-only', async () => {
    const { page } = await c.signedIn(VIEWER);
    await expect.poll(() => menuLinks(page)).toEqual(['Persons', 'Resources']);
    expect(await openablePages(page, c.base)).toEqual(['Persons', 'Resources']);
    expect(await hasButton(page, `${c.base}/console/persons`, 'Persons', 'New person')).toBe(false);
    expect(await page.getByRole('button', { name: /^Edit / }).count()).toBe(0);
    await page.goto(`${c.base}/uc/`);
    await expect.poll(() => menuLinks(page)).toEqual(['Profile', 'Password', 'Access tokens']);
  });
});
