/**
 * The posts pages by role: a contributor writes drafts in the personal center, an author publishes them, an editor
 * manages everyone's posts in the console.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type ConsoleUnderTest, startConsole } from './browser-harness.js';

const CONTRIBUTOR = { username: 'cathy', password: 'cathy-password' };
const AUTHOR = { username: 'arthur', password: 'arthur-password' };
const EDITOR = { username: 'edna', password: 'edna-password' };

describe.skipIf(!browserAvailable)('posts in the console and the personal center', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole();
    await c.createUser(CONTRIBUTOR, ['contributor']);
    await c.createUser(AUTHOR, ['author']);
    await c.createUser(EDITOR, ['editor']);
  }, 60_000);
  afterAll(() => c?.close());

  it('lets a contributor write, edit and delete drafts in the personal center, without publishing', async () => {
    const { page } = await c.signedIn(CONTRIBUTOR);
    // Nothing in the console for a contributor; "My posts" in the personal center, after one's own account.
    await page.getByRole('navigation', { name: 'Main' }).getByText('No pages for your roles yet.').waitFor();
    await page.goto(`${c.base}/uc/`);
    const menu = page.getByRole('navigation', { name: 'Main' });
    await expect
      .poll(() => menu.getByRole('link').allTextContents())
      .toEqual(['Profile', 'Password', 'Access tokens', 'My posts']);
    await menu.getByRole('link', { name: 'My posts' }).click();
    await page.getByRole('heading', { name: 'My posts' }).waitFor();
    await page.getByText('No posts yet.').waitFor();

    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByLabel('Title').fill('First steps');
    await dialog.getByLabel('Content').fill('Hello from the personal center.');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const table = page.getByRole('table', { name: 'My posts' });
    await table.getByRole('cell', { name: 'First steps', exact: true }).waitFor();
    await table.getByText('Draft').waitFor();
    expect(await page.getByRole('button', { name: 'Publish First steps' }).count()).toBe(0);
    await c.shot(page, 'uc-my-posts-contributor');
    expect(await c.seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Edit First steps' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit post' });
    expect(await edit.getByLabel('Title').inputValue()).toBe('First steps');
    await edit.getByLabel('Title').fill('Second steps');
    await edit.getByRole('button', { name: 'Save' }).click();
    await table.getByRole('cell', { name: 'Second steps', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Delete Second steps' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No posts yet.').waitFor();
  });

  it('lets an author publish a draft, and an editor see, unpublish and delete it in the console', async () => {
    const author = await c.signedIn(AUTHOR, '/uc/posts');
    await author.page.getByRole('heading', { name: 'My posts' }).waitFor();
    await author.page.getByRole('button', { name: 'New post' }).click();
    await author.page.getByRole('dialog', { name: 'New post' }).getByLabel('Title').fill('Release notes');
    await author.page.getByRole('dialog', { name: 'New post' }).getByRole('button', { name: 'Save' }).click();
    await author.page.getByRole('button', { name: 'Publish Release notes' }).click();
    await author.page.getByRole('table', { name: 'My posts' }).getByText('Published').waitFor();

    const { page } = await c.signedIn(EDITOR);
    const menu = page.getByRole('navigation', { name: 'Main' });
    await menu.getByRole('link', { name: 'Posts' }).click();
    const table = page.getByRole('table', { name: 'Posts' });
    const row = table.getByRole('row').filter({ hasText: 'Release notes' });
    await row.getByRole('cell', { name: 'arthur', exact: true }).waitFor();
    await row.getByText('Published').waitFor();
    await c.shot(page, 'posts-editor');
    expect(await c.seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Unpublish Release notes' }).click();
    await row.getByText('Draft').waitFor();
    await page.getByRole('button', { name: 'Delete Release notes' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No posts yet.').waitFor();
  });
});
