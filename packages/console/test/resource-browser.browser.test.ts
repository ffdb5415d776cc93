/**
 * The resource browser in a real browser: lists read a page at a time with field and label selectors and sorting,
 * edits through the schema's form with a conflict merged, validation errors at their paths, create, a delete held by a
 * finalizer, live rows from another client's writes, and the menu shown only to who may list a model.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peopleSettled } from '../../server/test/harness.js';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const PERSONS = '/apis/people.svc.run/v1alpha1/persons';
const POSTS = '/apis/content.svc.run/v1alpha1/posts';
const PERSONS_PAGE = '/console/resources/people.svc.run/v1alpha1/persons';
const POSTS_PAGE = '/console/resources/content.svc.run/v1alpha1/posts';
const NOBODY = { username: 'norah', password: 'norah-password-123' };
const VIEWER = { username: 'vick', password: 'vick-password-123' };

/**
 * p01 … p25: age 20 + n, FEMALE when n is odd (13 of them), label team=a for n <= 10, else team=b; with the people
 * plugin's own ada, alan and grace (two FEMALE, no team), created first: 28 persons.
 */
const personNamed = (n: number) => `p${String(n).padStart(2, '0')}`;

/** The names in the table's rows, top to bottom. */
async function rowNames(page: Page): Promise<string[]> {
  return page.locator('main table tbody tr td:first-child a').allTextContents();
}

/** Waits until the table shows no loading mask (it fades out after the rows are in). */
async function settled(page: Page): Promise<void> {
  await page.locator('.p-datatable-mask').waitFor({ state: 'detached' });
}

async function tableCount(page: Page): Promise<string> {
  return (await page.locator('.count').textContent()) ?? '';
}

describe.skipIf(!browserAvailable)('the resource browser in Chromium', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole();
    for (let n = 1; n <= 25; n++) {
      const made = await c.t.request('POST', PERSONS, {
        apiVersion: 'people.svc.run/v1alpha1',
        kind: 'Person',
        metadata: { name: personNamed(n), labels: { team: n <= 10 ? 'a' : 'b' } },
        spec: { name: `Person ${n}`, age: 20 + n, gender: n % 2 === 1 ? 'FEMALE' : 'MALE' },
      });
      if (made.status !== 201) throw new Error(`seeding ${personNamed(n)}: ${made.text}`);
      // Each a millisecond or more after the one before: the list's default order is newest first, and two persons
      // created within one millisecond (creationTimestamp's resolution) would sort by name instead.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await peopleSettled(c.t);
    await c.createUser(NOBODY);
    await c.createUser(VIEWER, ['people-role-view-persons']);
  }, 120_000);
  afterAll(() => c?.close());

  const post = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'content.svc.run/v1alpha1',
    kind: 'Post',
    metadata: { name, ...extra },
    spec: { title: `Title of ${name}` },
  });

  it('lists persons a page at a time, filters by field and label selectors, and sorts', async () => {
    const { page } = await c.signedIn(TEST_ADMIN);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Resources' }).click();
    await page.getByRole('heading', { name: 'Resources', level: 1 }).waitFor();
    await c.shot(page, 'resource-browser-models');
    expect(await c.seriousViolations(page)).toEqual([]);
    await page.getByRole('main').getByRole('link', { name: 'Persons' }).click();
    await page.getByRole('heading', { name: 'Persons' }).waitFor();
    await expect.poll(() => tableCount(page)).toBe('28 persons');
    // Newest first by default: p25 … p06 on the first page of 20.
    await expect.poll(() => rowNames(page)).toEqual(Array.from({ length: 20 }, (_, i) => personNamed(25 - i)));
    await page.getByRole('button', { name: 'Next Page' }).click();
    await expect.poll(async () => (await rowNames(page)).slice(0, 5)).toEqual(['p05', 'p04', 'p03', 'p02', 'p01']);
    expect((await rowNames(page)).sort()).toEqual(['ada', 'alan', 'grace', 'p01', 'p02', 'p03', 'p04', 'p05']);
    await settled(page);
    await c.shot(page, 'resource-browser-list');
    expect(await c.seriousViolations(page)).toEqual([]);

    // A field selector offered from the model's indexes; gender's values from its schema's enum.
    await page.getByLabel('Field', { exact: true }).selectOption('spec.gender');
    expect(await page.getByLabel('Value', { exact: true }).locator('option').allTextContents()).toEqual([
      'MALE',
      'FEMALE',
    ]);
    await page.getByLabel('Value', { exact: true }).selectOption('FEMALE');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => tableCount(page)).toBe('15 persons');
    // And a label selector with it: team=a and FEMALE are p01, p03, p05, p07, p09.
    await page.getByLabel('Label selector').fill('team=a');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => rowNames(page)).toEqual(['p09', 'p07', 'p05', 'p03', 'p01']);
    await settled(page);
    await c.shot(page, 'resource-browser-filtered');

    // Sorting by an indexed column: Years (spec.age), ascending then descending.
    await page.getByRole('columnheader', { name: 'Years' }).click();
    await expect.poll(() => rowNames(page)).toEqual(['p01', 'p03', 'p05', 'p07', 'p09']);
    await page.getByRole('columnheader', { name: 'Years' }).click();
    await expect.poll(() => rowNames(page)).toEqual(['p09', 'p07', 'p05', 'p03', 'p01']);
    // A column without an index is not sortable.
    expect(await page.getByRole('columnheader', { name: 'Labels' }).getAttribute('aria-sort')).toBeNull();
    // The table's state is in the URL: back from an object returns to the same rows and filters.
    await page.getByRole('link', { name: 'p07' }).click();
    await page.getByRole('heading', { name: 'Person p07' }).waitFor();
    await page.goBack();
    await expect.poll(() => rowNames(page)).toEqual(['p09', 'p07', 'p05', 'p03', 'p01']);
    expect(await page.getByLabel('Label selector').inputValue()).toBe('team=a');
    expect(await page.getByLabel('Field', { exact: true }).inputValue()).toBe('spec.gender');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => tableCount(page)).toBe('28 persons');
  });

  it('shows a validation error at its field', async () => {
    const { page } = await c.signedIn(TEST_ADMIN, `${PERSONS_PAGE}/p05`);
    await page.getByRole('heading', { name: 'Person p05' }).waitFor();
    const spec = page.getByRole('group', { name: 'Spec' });
    await spec.getByLabel('Age').fill('200');
    await page.getByRole('button', { name: 'Save' }).click();
    const age = spec.getByLabel('Age');

    await expect.poll(() => age.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('alert').waitFor();
    const describedBy = (await age.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe('must be <= 150');
    await c.shot(page, 'resource-browser-validation');
    expect(await c.seriousViolations(page)).toEqual([]);
    expect((await c.t.request('GET', `${PERSONS}/p05`)).body.spec.age).toBe(25);
  });

  it('saves over a conflict by re-applying the edit on the server version', async () => {
    expect((await c.t.request('POST', POSTS, post('draft'))).status).toBe(201);
    const { page } = await c.signedIn(TEST_ADMIN, `${POSTS_PAGE}/draft`);
    await page.getByRole('heading', { name: 'Post draft' }).waitFor();
    await page.getByRole('group', { name: 'Spec' }).getByLabel('Content').fill('Written in the console');
    // Another client saves first.
    const other = await c.t.request(
      'PATCH',
      `${POSTS}/draft`,
      { spec: { title: 'Retitled elsewhere' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(other.status).toBe(200);
    await page.getByRole('button', { name: 'Save' }).click();
    const conflict = page.getByRole('alert').filter({ hasText: 'Someone else saved this object first' });
    await conflict.waitFor();
    expect(await page.getByLabel("Server's version").inputValue()).toContain('title: Retitled elsewhere');
    await c.shot(page, 'resource-browser-conflict');
    expect(await c.seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Reload and merge my changes' }).click();
    await page.getByText('Your changes are applied on top of version 1').waitFor();
    const spec = page.getByRole('group', { name: 'Spec' });
    expect(await spec.getByLabel('Title').inputValue()).toBe('Retitled elsewhere');
    expect(await spec.getByLabel('Content').inputValue()).toBe('Written in the console');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved').first().waitFor();
    const stored = (await c.t.request('GET', `${POSTS}/draft`)).body;
    expect([stored.spec.title, stored.spec.content, stored.metadata.version]).toEqual([
      'Retitled elsewhere',
      'Written in the console',
      2,
    ]);
  });

  it('creates an object from the form, and edits as YAML', async () => {
    const { page } = await c.signedIn(TEST_ADMIN, POSTS_PAGE);
    await page.getByRole('link', { name: 'Create Post' }).click();
    await page.getByRole('heading', { name: 'New Post' }).waitFor();
    await page.getByLabel('Object name').fill('hello');
    await page.getByLabel('Labels').fill('topic=greetings');
    await page.getByRole('group', { name: 'Spec' }).getByLabel('Title').fill('Hello, world');
    await page.getByRole('group', { name: 'Spec' }).getByLabel('Published', { exact: true }).check();
    await c.shot(page, 'resource-browser-create');
    expect(await c.seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Post hello' }).waitFor();
    const made = (await c.t.request('GET', `${POSTS}/hello`)).body;
    expect([made.metadata.labels, made.spec.title, made.spec.published]).toEqual([
      { topic: 'greetings' },
      'Hello, world',
      true,
    ]);

    await page.getByRole('tab', { name: 'YAML' }).click();
    // The code editor (CodeMirror): its lines are the text.
    const yaml = page.getByRole('textbox', { name: 'YAML' });
    const text = async () => (await yaml.locator('.cm-line').allTextContents()).join('\n');
    await expect.poll(text).toContain('title: Hello, world');
    await yaml.fill((await text()).replace('title: Hello, world', 'title: Hello again'));
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await c.t.request('GET', `${POSTS}/hello`)).body.spec.title).toBe('Hello again');
    await c.shot(page, 'resource-browser-yaml');
  });

  it('deletes an object held by a finalizer: it shows as being deleted until the finalizer goes', async () => {
    const made = await c.t.request('POST', POSTS, post('held', { finalizers: ['example.com/hold'] }));
    expect(made.status).toBe(201);
    const { page } = await c.signedIn(TEST_ADMIN, `${POSTS_PAGE}/held`);
    await page.getByRole('heading', { name: 'Post held' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('until its finalizers are removed: example.com/hold').waitFor();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Being deleted' }).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    const stored = (await c.t.request('GET', `${POSTS}/held`)).body;
    expect(stored.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page.locator('time').getAttribute('datetime')).toBe(stored.metadata.deletionTimestamp);
    expect(await page.getByRole('list', { name: 'Finalizers' }).getByRole('listitem').allTextContents()).toEqual([
      'example.com/hold',
    ]);
    await c.shot(page, 'resource-browser-deleting');
    expect(await c.seriousViolations(page)).toEqual([]);
    // In the list too.
    await page.getByRole('main').getByRole('link', { name: 'Posts' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'held' }) });
    await row.getByText('Deleting').waitFor();
    // Another client removes the finalizer: the object goes, and the list follows.
    const release = await c.t.request(
      'PATCH',
      `${POSTS}/held`,
      { metadata: { finalizers: null } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(release.status).toBe(200);
    await expect.poll(() => rowNames(page)).not.toContain('held');
    expect((await c.t.request('GET', `${POSTS}/held`)).status).toBe(404);
  });

  it("follows another client's writes live, without reloading the page", async () => {
    const { page } = await c.signedIn(TEST_ADMIN, POSTS_PAGE);
    await page.getByRole('heading', { name: 'Posts' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const before = await rowNames(page);
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same page'));

    expect((await c.t.request('POST', POSTS, post('live-one'))).status).toBe(201);
    await expect.poll(() => rowNames(page)).toEqual(['live-one', ...before]);
    await c.t.request(
      'PATCH',
      `${POSTS}/live-one`,
      { metadata: { labels: { seen: 'live' } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'live-one' }) });
    await row.getByText('seen=live').waitFor();
    expect((await c.t.request('DELETE', `${POSTS}/live-one`)).status).toBe(200);
    await expect.poll(() => rowNames(page)).toEqual(before);
    await page.getByRole('status').filter({ hasText: 'Live: 3 changes since loaded' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same page');
    await settled(page);
    await c.shot(page, 'resource-browser-live');
  });

  it('shows the Resources menu only to who may list a model, and only what they may do', async () => {
    const nobody = await c.signedIn(NOBODY);
    const menu = nobody.page.getByRole('navigation', { name: 'Main' });
    await menu.getByText('No pages for your roles yet.').waitFor();
    expect(await menu.getByRole('link', { name: 'Resources' }).count()).toBe(0);
    await nobody.page.goto(`${c.base}${PERSONS_PAGE}`);
    await nobody.page.getByRole('heading', { name: 'No permission' }).waitFor();

    const viewer = await c.signedIn(VIEWER);
    await viewer.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Resources' }).click();
    // The Resources page's own table: the page shown before it may have a Persons link of its own.
    const models = viewer.page.getByRole('main').getByRole('table', { name: 'Models' });
    await models.getByRole('link', { name: 'Persons' }).waitFor();
    expect(await models.locator('tbody tr td:first-child').allTextContents()).toEqual(['Persons']);
    await viewer.page.getByRole('main').getByRole('link', { name: 'Persons' }).click();
    await expect.poll(() => tableCount(viewer.page)).toBe('28 persons');
    expect(await viewer.page.getByRole('link', { name: 'Create Person' }).count()).toBe(0);
    await viewer.page.getByRole('link', { name: 'p25' }).click();
    await viewer.page.getByRole('heading', { name: 'Person p25' }).waitFor();
    expect(await viewer.page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    // Shown, not editable.
    expect(await viewer.page.getByRole('group', { name: 'Spec' }).getByLabel('Age').isDisabled()).toBe(true);
    await c.shot(viewer.page, 'resource-browser-viewer');
  });
});
