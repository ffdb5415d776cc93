/**
 * A plugin's settings form in a real browser: rendered on its detail page from the schema it declares, saved values
 * reach the plugin (its route answers with them), a value the schema refuses is named at its field, and someone who
 * may only view plugins sees no form.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const FIXTURES = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../server/test/fixtures');
const GREETING = '/apis/api.greeter.svc.run/v1/greeting';
const VIEWER = { username: 'settings-viewer', password: 'settings-viewer-password' };

describe.skipIf(!browserAvailable)('plugin settings form in Chromium', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole({ pluginsDirs: [path.join(FIXTURES, 'plugins-settings')] });
    await c.createUser(VIEWER, ['role-template-view-plugins']);
  });
  afterAll(async () => {
    await c?.close();
  });

  it('shows the declared settings with their defaults, saves them, and the plugin reads them', async () => {
    const { page } = await c.signedIn(TEST_ADMIN, '/console/plugins/greeter');
    const form = page.getByRole('form', { name: 'Settings of Greeter' });
    const greeting = form.getByLabel('Greeting');
    await expect.poll(() => greeting.inputValue()).toBe('Hello');
    await greeting.fill('Bonjour');
    await form.getByLabel('Excited').check();
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await expect.poll(async () => (await c.t.request('GET', GREETING)).body.text).toBe('Bonjour!');
    expect(await c.seriousViolations(page, 'form')).toEqual([]);
    await c.shot(page, 'plugin-settings');

    // Read back after a reload: the form shows what is stored, not the defaults.
    await page.reload();
    await expect
      .poll(() => page.getByRole('form', { name: 'Settings of Greeter' }).getByLabel('Greeting').inputValue())
      .toBe('Bonjour');
  });

  it('names a refused value at its field and keeps what was stored', async () => {
    const { page } = await c.signedIn(TEST_ADMIN, '/console/plugins/greeter');
    const form = page.getByRole('form', { name: 'Settings of Greeter' });
    await expect.poll(() => form.getByLabel('Greeting').inputValue()).toBe('Bonjour');
    await form.getByLabel('Greeting').fill('x'.repeat(41));
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.getByText('must be at most 40 characters long').waitFor();
    expect((await c.t.request('GET', GREETING)).body.text).toBe('Bonjour!');
  });

  it('shows no settings form to someone who may only view plugins', async () => {
    const { page } = await c.signedIn(VIEWER, '/console/plugins/greeter');
    await page.getByRole('heading', { name: 'Conditions' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Settings' }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Settings of Greeter' }).count()).toBe(0);
  });
});
