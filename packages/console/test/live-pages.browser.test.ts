/**
 * Live pages: objects created, changed and deleted over the API show on the pages that list them without a reload —
 * the people plugin's Persons page (sorted by name, so a new person lands in its place), through `useLiveList` of
 * `@svc/console-shared` (the resource browser's live rows: resource-browser.browser.test.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type ConsoleUnderTest, startConsole } from './browser-harness.js';

const VIEWER = { username: 'vera', password: 'vera-password-123' };
const PERSONS = '/apis/people.svc.run/v1alpha1/persons';

const person = (name: string, fullName: string, age: number) => ({
  apiVersion: 'people.svc.run/v1alpha1',
  kind: 'Person',
  metadata: { name },
  spec: { name: fullName, age, gender: 'FEMALE' },
});

const firstCells = (page: Page, table: string) =>
  page.getByRole('table', { name: table }).locator('tbody tr td:first-child').allTextContents();

describe.skipIf(!browserAvailable)('live pages', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole();
    await c.createUser(VIEWER, ['people-role-view-persons']);
  }, 60_000);
  afterAll(() => c?.close());

  it('shows a person created, changed and deleted over the API on the Persons page without a reload', async () => {
    const { page } = await c.signedIn(VIEWER, '/console/persons');
    const table = page.getByRole('table', { name: 'Persons' });
    await table.getByRole('cell', { name: 'Grace Hopper' }).waitFor();
    await page.locator('.p-datatable-mask').waitFor({ state: 'detached' });
    expect(await firstCells(page, 'Persons')).toEqual(['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);
    const loads = await page.evaluate(() => performance.getEntriesByType('navigation').length);

    const created = await c.t.request('POST', PERSONS, person('barbara', 'Barbara Liskov', 86));
    expect(created.status).toBe(201);
    // Sorted by name: the new person shows in its place, and the counts follow.
    await expect
      .poll(() => firstCells(page, 'Persons'))
      .toEqual(['Ada Lovelace', 'Alan Turing', 'Barbara Liskov', 'Grace Hopper']);
    await page.getByText('4 persons in all.').waitFor();

    const changed = await c.t.request(
      'PATCH',
      `${PERSONS}/barbara`,
      { spec: { age: 87 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(changed.status).toBe(200);
    await table.getByRole('row', { name: /Barbara Liskov 87/ }).waitFor();

    expect((await c.t.request('DELETE', `${PERSONS}/barbara`)).status).toBe(200);
    await expect.poll(() => firstCells(page, 'Persons')).toEqual(['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);
    // Still the same document: nothing reloaded the page.
    expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(loads);
    expect(new URL(page.url()).pathname).toBe('/console/persons');
    await c.shot(page, 'live-persons');
  });
});
