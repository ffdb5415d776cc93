/**
 * A plugin's UI folder is served on the console's origin. Opened as a page itself, an `.html` or `.svg` file of it
 * must run no script there (issue 28 item 8): in Chromium, with a session signed in, neither file's inline script runs
 * and the page has an origin of its own.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../../server/test/harness.js';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const UI_PLUGINS = path.join(REPO, 'packages/server/test/fixtures/plugins-ui');
const UIS = '/apis/api.console.svc.run/v1alpha1/plugins/-/uis';

describe.skipIf(!browserAvailable)("a plugin UI's files opened as pages", () => {
  let c: ConsoleUnderTest;
  let folder: string;

  beforeAll(async () => {
    c = await startConsole({ pluginsDirs: [UI_PLUGINS] });
    const { entry } = (await c.t.request('GET', UIS)).body.items[0];
    folder = `${c.base}${entry.slice(0, -'main.js'.length)}`;
  }, 60_000);
  afterAll(() => c?.close());

  it('run none of their script, and are not of the console’s origin', async () => {
    const { page } = await c.signedIn(TEST_ADMIN);
    await page.goto(`${folder}page.html`);
    // The script would have renamed the page as it was parsed, and again once it had read the caller's permissions.
    expect(await page.title()).toBe('untouched');
    expect(await page.evaluate(() => window.origin)).toBe('null');
    await page.goto(`${folder}icon.svg`);
    expect(await page.evaluate(() => document.querySelector('title')?.textContent)).toBe('untouched');
    expect(await page.evaluate(() => window.origin)).toBe('null');
  });
});
