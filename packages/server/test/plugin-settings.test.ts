import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, login, userWithRoles } from './auth-harness.js';
import { BACKENDS, PEOPLE_PLUGINS, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'plugins-settings');
const SETTINGS = '/apis/plugin.svc.run/v1alpha1/pluginsettings';
const GREETING = '/apis/api.greeter.svc.run/v1/greeting';

const setting = (name: string, spec: Record<string, unknown>, version?: number) => ({
  apiVersion: 'plugin.svc.run/v1alpha1',
  kind: 'PluginSetting',
  metadata: { name, ...(version === undefined ? {} : { version }) },
  spec,
});

/** Reads the greeting until it is `text` (a change reaches the plugin after the write commits: no timing asserted). */
async function greetingBecomes(t: TestServer, text: string): Promise<Record<string, unknown>> {
  for (;;) {
    const response = await t.request('GET', GREETING);
    if (response.status === 200 && response.body.text === text) return response.body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(BACKENDS)('plugin settings over HTTP (%s)', (backend) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [FIXTURES, PEOPLE_PLUGINS] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('gives the plugin the schema defaults before anything is saved', async () => {
    const response = await t.request('GET', GREETING);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ text: 'Hello.', heard: null });
    const plugin = await t.request('GET', '/apis/plugin.svc.run/v1alpha1/plugins/greeter');
    expect(plugin.body.spec.settings.properties.greeting).toMatchObject({ type: 'string', default: 'Hello' });
  });

  it('saved values reach the plugin: get() reads them and onChange hears them', async () => {
    const created = await t.request('POST', SETTINGS, setting('greeter', { greeting: 'Hi' }));
    expect(created.status, created.text).toBe(201);
    expect(await greetingBecomes(t, 'Hi.')).toEqual({ text: 'Hi.', heard: { greeting: 'Hi', excited: false } });

    const updated = await t.request(
      'PUT',
      `${SETTINGS}/greeter`,
      setting('greeter', { greeting: 'Howdy', excited: true }, created.body.metadata.version),
    );
    expect(updated.status, updated.text).toBe(200);
    expect(await greetingBecomes(t, 'Howdy!')).toEqual({
      text: 'Howdy!',
      heard: { greeting: 'Howdy', excited: true },
    });
  });

  it('refuses values the schema does not accept (400 Invalid) naming the field', async () => {
    const current = (await t.request('GET', `${SETTINGS}/greeter`)).body;
    const wrongType = await t.request(
      'PUT',
      `${SETTINGS}/greeter`,
      setting('greeter', { greeting: 42 }, current.metadata.version),
    );
    expect(wrongType.status).toBe(400); // CONTRACT.md: a schema violation is a 400 (reason Invalid)
    expect(wrongType.body.title).toBe('Invalid');
    expect(wrongType.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(wrongType.body.errors).toContainEqual({ path: '/spec/greeting', message: 'must be string' });

    const unknown = await t.request(
      'PUT',
      `${SETTINGS}/greeter`,
      setting('greeter', { greeting: 'Yo', colour: 'red' }, current.metadata.version),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toContainEqual({ path: '/spec/colour', message: 'is not a known field' });
    // Nothing changed: the plugin still reads the last accepted values.
    expect((await t.request('GET', GREETING)).body.text).toBe('Howdy!');
  });

  it('refuses settings for a plugin that declares none, or is not installed', async () => {
    const none = await t.request('POST', SETTINGS, setting('people', { anything: 1 }));
    expect(none.status).toBe(400);
    expect(none.body.detail).toMatch(/plugin "people" declares no settings/);
    const missing = await t.request('POST', SETTINGS, setting('ghost', {}));
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/no plugin named "ghost"/);
  });

  it('lets only whoever may manage plugins read and edit them (settings may hold secrets)', async () => {
    const admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
    const viewer = await userWithRoles(t, admin, 'settings-viewer', ['role-template-view-plugins']);
    expect((await as(t, viewer)('GET', '/apis/plugin.svc.run/v1alpha1/plugins/greeter')).status).toBe(200);
    expect((await as(t, viewer)('GET', `${SETTINGS}/greeter`)).status).toBe(403);
    const current = (await t.request('GET', `${SETTINGS}/greeter`)).body;
    const write = await as(t, viewer)(
      'PUT',
      `${SETTINGS}/greeter`,
      setting('greeter', { greeting: 'Hacked' }, current.metadata.version),
    );
    expect(write.status).toBe(403);
    expect((await t.request('GET', `${SETTINGS}/greeter`)).body.spec).toEqual({ greeting: 'Howdy', excited: true });
  });

  it('deleting the settings brings the defaults back', async () => {
    const deleted = await t.request('DELETE', `${SETTINGS}/greeter`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(await greetingBecomes(t, 'Hello.')).toEqual({
      text: 'Hello.',
      heard: { greeting: 'Hello', excited: false },
    });
  });
});

describe('plugin settings at uninstall', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ pluginsDirs: [] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps them with the data by default, and deletes them with it', async () => {
    const install = async () => {
      const { body, headers } = multipart(await tgzOf(path.join(FIXTURES, 'greeter')));
      expect(
        (await t.request('POST', '/apis/api.console.svc.run/v1alpha1/plugins/install', body, headers)).status,
      ).toBe(201);
    };
    const uninstall = async (data: string) => {
      expect((await t.request('DELETE', `/apis/plugin.svc.run/v1alpha1/plugins/greeter?data=${data}`)).status).toBe(
        200,
      );
      while ((await t.request('GET', '/apis/plugin.svc.run/v1alpha1/plugins/greeter')).status !== 404) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await install();
    expect((await t.request('POST', SETTINGS, setting('greeter', { greeting: 'Kept' }))).status).toBe(201);
    await uninstall('keep');
    expect((await t.request('GET', `${SETTINGS}/greeter`)).body.spec).toEqual({ greeting: 'Kept' });
    await install();
    await uninstall('delete');
    expect((await t.request('GET', `${SETTINGS}/greeter`)).status).toBe(404);
  });
});
