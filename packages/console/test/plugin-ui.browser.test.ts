/**
 * The people plugin's UI, loaded by the console at run time: its "Persons" page (table with server-side paging and
 * filters, the stats chart, the form) as the administrator and as a viewer, the menu entry leaving and coming back
 * live as the plugin is disabled and enabled, and a role given to a signed-in user showing their entry live.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleBinding } from '../../server/test/harness.js';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const VIEWER = { username: 'vera', password: 'vera-password-123' };
const LATECOMER = { username: 'lou', password: 'lou-password-123' };
const OWNER = { username: 'olga', password: 'olga-password-123' };
const PLUGIN_STATE = '/apis/api.console.svc.run/v1alpha1/plugins/people/plugin-state';
const BINDINGS = '/api/v1alpha1/rolebindings';

const menuLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

/** Waits until no Vue transition runs (dialogs and messages fade in), so screenshots show the page at rest. */
const settled = (page: Page) =>
  expect
    .poll(() =>
      page.evaluate(() => document.querySelectorAll('.p-dialog-enter-active, .p-message-enter-active').length),
    )
    .toBe(0);

const tableNames = async (page: Page) => {
  const table = page.getByRole('table', { name: 'Persons' });
  await table.getByRole('row').nth(1).waitFor();
  // The page mounts loading: PrimeVue's mask covers the empty message's row until the first page is in.
  await page.locator('.p-datatable-mask').waitFor({ state: 'detached' });
  return table.locator('tbody tr td:first-child').allTextContents();
};

describe.skipIf(!browserAvailable)('the people plugin UI in the console', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole();
    await c.createUser(VIEWER, ['people-role-view-persons']);
    await c.createUser(LATECOMER);
    await c.createUser(OWNER, ['people-role-manage-own-persons']);
  }, 60_000);
  afterAll(() => c?.close());

  it('gives the administrator the Persons page: table, filters, chart and form', async () => {
    const { page } = await c.signedIn(TEST_ADMIN);
    const menu = page.getByRole('navigation', { name: 'Main' });
    await menu.getByRole('link', { name: 'Persons' }).click();
    await page.getByRole('heading', { name: 'Persons', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/persons');
    expect(await tableNames(page)).toEqual(['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);
    // The stats of the plugin's custom API, drawn by the plugin's own chart.
    const chart = page.getByRole('img', { name: 'Male: 1, Female: 2' });
    await chart.waitFor();
    await page.getByText('3 persons in all.').waitFor();
    await page.locator('.p-datatable-mask').waitFor({ state: 'detached' });
    await settled(page);
    await c.shot(page, 'plugin-ui-persons-admin');
    expect(await c.seriousViolations(page)).toEqual([]);

    // Gender filter: a field selector on the model's index.
    await page.getByRole('combobox', { name: 'Gender' }).click();
    await page.getByRole('option', { name: 'Male', exact: true }).click();
    await expect.poll(() => tableNames(page)).toEqual(['Alan Turing']);
    await page.getByRole('combobox', { name: 'Gender' }).click();
    await page.getByRole('option', { name: 'Any', exact: true }).click();
    await expect.poll(() => tableNames(page)).toEqual(['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);

    // Create: svc's refusal is shown in the form (the name is unique by the model's index), then a valid person is
    // saved and counted.
    await page.getByRole('button', { name: 'New person' }).click();
    const dialog = page.getByRole('dialog', { name: 'New person' });
    await dialog.getByLabel('Name').fill('Ada Lovelace');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toBe(
        'people.svc.run/v1alpha1 Person "ada-lovelace": unique index "spec.name" already holds value "Ada Lovelace" (for "ada")',
      );
    await settled(page);
    await c.shot(page, 'plugin-ui-person-form');
    expect(await c.seriousViolations(page)).toEqual([]);
    await dialog.getByLabel('Name').fill('Katherine Johnson');
    await dialog.getByLabel('Age').fill('101');
    await dialog.getByRole('combobox', { name: 'Gender' }).click();
    await page.getByRole('option', { name: 'Female', exact: true }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The layout's toasts mount on their first message, which still shows.
    await page.locator('.p-toast').getByText('Created person Katherine Johnson').waitFor();
    await page.getByRole('img', { name: 'Male: 1, Female: 3' }).waitFor();
    const stored = await c.t.request('GET', '/apis/people.svc.run/v1alpha1/persons/katherine-johnson');
    expect(stored.body.spec).toEqual({ name: 'Katherine Johnson', age: 101, gender: 'FEMALE' });

    // Edit.
    await page.getByRole('button', { name: 'Edit Alan Turing' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit person' });
    expect(await edit.getByLabel('Name').inputValue()).toBe('Alan Turing');
    await edit.getByLabel('Age').fill('42');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await page.locator('.p-toast').getByText('Saved person Alan Turing').waitFor();
    expect((await c.t.request('GET', '/apis/people.svc.run/v1alpha1/persons/alan')).body.spec.age).toBe(42);
  });

  it('asks for the session and the plugin UIs once each, together, before its own code has run', async () => {
    const { page } = await c.signedIn(TEST_ADMIN);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${c.base}/console/persons`);
    expect(await tableNames(page)).toContain('Ada Lovelace');
    const requests = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((e) => ({
        path: new URL(e.name).pathname,
        start: e.startTime,
        end: (e as PerformanceResourceTiming).responseEnd,
      })),
    );
    // When the parser finished the page: module scripts (the console's code) run only after it.
    const parsed = await page.evaluate(
      () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domInteractive,
    );
    const of = (path: string) => requests.filter((r) => r.path.endsWith(path));
    const [permissions, uis] = [of('/users/-/permissions'), of('/plugins/-/uis')];
    expect([permissions.length, uis.length, of('/main.js').length]).toEqual([1, 1, 1]);
    // Both asked for at once by the page's inline script, while the page was parsed: the second before the first is
    // answered, and both before the console's code ran (they used to wait for it, and the list for the session).
    expect(uis[0]!.start).toBeLessThan(permissions[0]!.end);
    expect(Math.max(permissions[0]!.start, uis[0]!.start)).toBeLessThanOrEqual(parsed);
  });

  it("asks for the Persons page's first page once, while the page's code loads", async () => {
    const { page } = await c.signedIn(TEST_ADMIN);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The data table the page imports (through the console's import map) is held back: the page cannot be set up
    // until it arrives, so a list asked for meanwhile was asked for by the route, not by the page.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    await page.route(/\/shared-primevue-datatable-[\w-]+\.js$/, async (route) => {
      holding = true;
      await held;
      await route.continue();
    });
    const lists: boolean[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/apis/people.svc.run/v1alpha1/persons' && url.searchParams.get('page') === '1') {
        lists.push(holding);
      }
    });
    await page.goto(`${c.base}/console/persons`, { waitUntil: 'commit' });
    await expect.poll(() => lists).toEqual([true]);
    release();
    expect(await tableNames(page)).toContain('Ada Lovelace');
    // Taken by the page, not asked for again.
    expect(lists).toEqual([true]);
  });

  it('shows a viewer the table and the chart, without create or edit buttons', async () => {
    const { page } = await c.signedIn(VIEWER, '/console/persons');
    await page.getByRole('heading', { name: 'Persons', level: 1 }).waitFor();
    // Resources too: the viewer may list persons.
    expect(await menuLinks(page)).toEqual(['Persons', 'Resources']);
    expect(await tableNames(page)).toContain('Ada Lovelace');
    await page.getByRole('img', { name: /^Male: \d+, Female: \d+$/ }).waitFor();
    expect(await page.getByRole('button', { name: 'New person' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Edit / }).count()).toBe(0);
    await page.locator('.p-datatable-mask').waitFor({ state: 'detached' });
    await c.shot(page, 'plugin-ui-persons-viewer');
    expect(await c.seriousViolations(page)).toEqual([]);
  });

  it('drops the menu entry live when the plugin is disabled, and brings it back when enabled', async () => {
    const { page } = await c.signedIn(TEST_ADMIN, '/console/persons');
    await page.getByRole('heading', { name: 'Persons', level: 1 }).waitFor();
    // Marks the document: a reload would lose it.
    await page.evaluate(() => ((window as unknown as { kept: boolean }).kept = true));
    expect((await c.t.request('PUT', PLUGIN_STATE, { enable: false })).status).toBe(200);
    await expect.poll(() => menuLinks(page)).not.toContain('Persons');
    // The page it was on is gone: the user is on the overview.
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await c.shot(page, 'plugin-ui-disabled');
    expect((await c.t.request('PUT', PLUGIN_STATE, { enable: true })).status).toBe(200);
    await expect.poll(() => menuLinks(page)).toContain('Persons');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Persons' }).click();
    await page.getByRole('heading', { name: 'Persons', level: 1 }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { kept?: boolean }).kept)).toBe(true);
  });

  it('shows a signed-in user the entry live when they are given a role', async () => {
    const { page } = await c.signedIn(LATECOMER);
    await page.getByRole('navigation', { name: 'Main' }).getByText('No pages for your roles yet.').waitFor();
    await page.evaluate(() => ((window as unknown as { kept: boolean }).kept = true));
    const bound = await c.t.request(
      'POST',
      BINDINGS,
      roleBinding('lou-people-view', 'people-role-view-persons', { users: [LATECOMER.username] }),
    );
    expect(bound.status).toBe(201);
    await expect.poll(() => menuLinks(page)).toEqual(['Persons', 'Resources']);
    expect(await page.evaluate(() => (window as unknown as { kept?: boolean }).kept)).toBe(true);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Persons' }).click();
    expect(await tableNames(page)).toContain('Grace Hopper');
  });

  it("adds the plugin's personal-center page (ucRoutes) for holders of its own-persons template", async () => {
    const { page } = await c.signedIn(OWNER);
    // Nothing in the console: the template opens only the plugin's personal-center API.
    await page.getByRole('navigation', { name: 'Main' }).getByText('No pages for your roles yet.').waitFor();
    await page.goto(`${c.base}/uc/`);
    await expect.poll(() => menuLinks(page)).toEqual(['Profile', 'Password', 'Access tokens', 'My persons']);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My persons' }).click();
    await page.getByRole('heading', { name: 'My persons', level: 1 }).waitFor();
    await page.getByText('No persons of yours yet.').waitFor();
    await page.getByRole('button', { name: 'New person' }).click();
    const dialog = page.getByRole('dialog', { name: 'New person' });
    await dialog.getByLabel('Name').fill('Olga Own');
    await dialog.getByLabel('Age').fill('33');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const table = page.getByRole('table', { name: 'My persons' });
    await table.getByRole('cell', { name: 'Olga Own', exact: true }).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await settled(page);
    await c.shot(page, 'plugin-ui-my-persons');
    expect(await c.seriousViolations(page)).toEqual([]);
    // The plugin set the owner: the administrator sees the label on the stored object.
    const stored = await c.t.request('GET', '/apis/people.svc.run/v1alpha1/persons/olga-own');
    expect(stored.body.metadata.labels['people.svc.run/owner']).toBe('olga');
  });
});
