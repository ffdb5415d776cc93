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
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => cells(page, 2)).toEqual([TEST_ADMIN.username, TEST_ADMIN.username]);
    expect(await cells(page, 4)).toEqual(['users', 'users']);
    expect(await cells(page, 3)).toEqual(['create', 'create']);
    expect(await cells(page, 6)).toEqual(['201', '201']);
    await page.getByLabel('User', { exact: true }).fill('nobody-by-this-name');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No events match.', { exact: false }).waitFor();
    expect(await c.seriousViolations(page)).toEqual([]);
    await c.shot(page, 'audit-page');

    const viewer = await c.signedIn(VIEWER);
    await expect.poll(() => menuLinks(viewer.page)).toContain('Persons');
    expect(await menuLinks(viewer.page)).not.toContain('Audit log');
    await viewer.page.goto(`${c.base}/console/audit`);
    await viewer.page.getByRole('heading', { name: 'No permission' }).waitFor();
  });
});
