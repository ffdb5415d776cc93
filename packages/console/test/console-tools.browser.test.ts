/**
 * The console's tools beyond the pages of one model: the audit log page (only for holders of `system:audit:view`),
 * Ctrl/⌘+K search across menu entries and objects, and the overview's widgets, each behind its UI permissions.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const AUDITOR = { username: 'aude', password: 'aude-password-123' };
const VIEWER = { username: 'vera', password: 'vera-password-123' };

const menuLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
const cells = (page: Page, column: number) =>
  page.locator(`table.plain-table tbody tr td:nth-child(${column})`).allTextContents();

describe.skipIf(!browserAvailable)('console tools', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole();
    await c.createUser(AUDITOR, ['role-template-view-audit']);
    await c.createUser(VIEWER, ['people-role-view-persons']);
  }, 60_000);
  afterAll(() => c?.close());

  it('lists audit events with filters for holders of system:audit:view, and hides the page from others', async () => {
    const { page } = await c.signedIn(AUDITOR);
    await expect.poll(() => menuLinks(page)).toContain('Audit log');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    // The two users made at the start were created by the administrator: written events.
    await page.getByLabel('User', { exact: true }).fill(TEST_ADMIN.username);
    await page.getByLabel('Verb').fill('create');
    await page.getByLabel('Resource').fill('users');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => cells(page, 2)).toEqual([TEST_ADMIN.username, TEST_ADMIN.username]);
    expect(await cells(page, 4)).toEqual(['users', 'users']);
    expect(await cells(page, 3)).toEqual(['create', 'create']);
    expect(await cells(page, 6)).toEqual(['201', '201']);
    await page.getByLabel('User', { exact: true }).fill('nobody-by-this-name');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No events match.', { exact: false }).waitFor();
    expect(await c.seriousViolations(page)).toEqual([]);
    await c.shot(page, 'audit-page');

    const viewer = await c.signedIn(VIEWER);
    await expect.poll(() => menuLinks(viewer.page)).toContain('Persons');
    expect(await menuLinks(viewer.page)).not.toContain('Audit log');
    await viewer.page.goto(`${c.base}/console/audit`);
    await viewer.page.getByRole('heading', { name: 'No permission' }).waitFor();
  });

  it("shows the overview's widgets each to the holders of its UI permissions, plugins' too", async () => {
    const widgets = (page: Page) =>
      page.getByRole('region', { name: 'Dashboard' }).getByRole('heading', { level: 2 }).allTextContents();
    const viewer = await c.signedIn(VIEWER);
    await expect.poll(() => widgets(viewer.page)).toEqual(['Objects you may see', 'Recent changes', 'Persons']);
    // The people plugin's widget, with its custom API's counts.
    await viewer.page.getByText('3 persons in all.').waitFor();
    const counts = viewer.page.locator('[data-widget="svc-counts"]');
    await expect.poll(() => counts.getByRole('listitem').allTextContents()).toEqual(['Persons3']);
    expect(await c.seriousViolations(viewer.page)).toEqual([]);
    await c.shot(viewer.page, 'dashboard-viewer');

    // Without plugin:people:view nor the resource browser: none of those widgets.
    const auditor = await c.signedIn(AUDITOR);
    await auditor.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await widgets(auditor.page)).toEqual([]);

    const admin = await c.signedIn(TEST_ADMIN);
    await expect.poll(() => widgets(admin.page)).toContain('Plugin health');
    const health = admin.page.locator('[data-widget="svc-plugin-health"]');
    await expect.poll(() => health.getByRole('listitem').allTextContents()).toEqual(['PeopleSTARTED']);
    await c.shot(admin.page, 'dashboard-admin');
  });

  it('opens search with Ctrl+K and goes to a menu entry or an object on Enter', async () => {
    const created = await c.t.request('POST', '/apis/people.svc.run/v1alpha1/persons', {
      apiVersion: 'people.svc.run/v1alpha1',
      kind: 'Person',
      metadata: { name: 'hedy' },
      spec: { name: 'Hedy Lamarr', age: 85, gender: 'FEMALE' },
    });
    expect(created.status).toBe(201);
    const { page } = await c.signedIn(TEST_ADMIN);
    await page.keyboard.press('Control+K');
    const dialog = page.getByRole('dialog', { name: 'Search' });
    const box = dialog.getByRole('combobox', { name: 'Search pages and objects' });
    await box.waitFor();
    await box.fill('audit');
    const options = dialog.getByRole('option');
    await expect.poll(() => options.allTextContents()).toEqual(['Audit logPage']);
    expect(await c.seriousViolations(page, '.p-dialog')).toEqual([]);
    await box.press('Enter');
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await dialog.waitFor({ state: 'hidden' });

    // An object by its exact name, in every model the user may list.
    await page.keyboard.press('Control+K');
    await box.fill('hedy');
    await expect.poll(() => options.allTextContents()).toEqual(['hedyPersons']);
    await c.shot(page, 'search-dialog');
    await box.press('Enter');
    await page.waitForURL('**/console/resources/people.svc.run/v1alpha1/persons/hedy');

    // A viewer of persons: only the pages they may open, and the objects of the models they may list.
    const viewer = await c.signedIn(VIEWER);
    await viewer.page.keyboard.press('Control+K');
    const viewerBox = viewer.page.getByRole('combobox', { name: 'Search pages and objects' });
    await viewerBox.fill('audit');
    await viewer.page.getByText('Nothing found for “audit”.').waitFor();
    await viewerBox.fill('hedy');
    await expect
      .poll(() => viewer.page.getByRole('dialog').getByRole('option').allTextContents())
      .toEqual(['hedyPersons']);
    await viewerBox.fill('admin');
    await viewer.page.getByText('Nothing found for “admin”.').waitFor();
    await viewerBox.fill('pers');
    await expect
      .poll(() => viewer.page.getByRole('dialog').getByRole('option').allTextContents())
      .toEqual(['PersonsPage']);
  });

  it('shows a name already taken at the Name field of a create, not above the form', async () => {
    const taken = await c.t.request('POST', '/apis/content.svc.run/v1alpha1/posts', {
      apiVersion: 'content.svc.run/v1alpha1',
      kind: 'Post',
      metadata: { name: 'taken' },
      spec: { title: 'First' },
    });
    expect(taken.status).toBe(201);
    const { page } = await c.signedIn(TEST_ADMIN, '/console/resources/content.svc.run/v1alpha1/posts/-/new');
    await page.getByLabel('Object name').fill('taken');
    await page.getByRole('group', { name: 'Spec' }).getByLabel('Title').fill('Second');
    await page.getByRole('button', { name: 'Create' }).click();
    const name = page.getByLabel('Object name');
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    const error = page.locator('#object-name-error');
    expect(await error.textContent()).toMatch(/already exists/);
    expect(await name.getAttribute('aria-describedby')).toBe('object-name-error');
    await c.shot(page, 'create-name-taken');
  });

  it("creates a post from the administrator's Posts page", async () => {
    const { page } = await c.signedIn(TEST_ADMIN, '/console/posts');
    await page.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByLabel('Title').fill('From the console');
    await dialog.getByLabel('Content').fill('Written by an editor.');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'From the console', exact: true }).waitFor();
    const listed = await c.t.request('GET', '/apis/content.svc.run/v1alpha1/posts');
    const made = listed.body.items.filter((p: { spec: { title: string } }) => p.spec.title === 'From the console');
    expect(made.map((p: { spec: { content: string } }) => p.spec.content)).toEqual(['Written by an editor.']);
  });
});
