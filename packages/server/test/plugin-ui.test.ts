import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestProblems } from '../src/plugins/manifest.js';
import { as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, roleBinding, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { watchHttp } from './watch-client.js';

const UI_PLUGINS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/plugins-ui');
const UIS = `${CONSOLE}/plugins/-/uis`;
const EVENTS = `${CONSOLE}/users/-/console-events`;
const BINDINGS = '/api/v1alpha1/rolebindings';

describe('spec.ui in a manifest', () => {
  const manifest = (spec: Record<string, unknown>) => ({
    apiVersion: 'plugin.svc.run/v1alpha1',
    kind: 'Plugin',
    metadata: { name: 'p' },
    spec: { version: '1.0.0', requires: '*', main: 'index.js', ...spec },
  });

  it('accepts an entry in a folder of the plugin, with a stylesheet beside it', () => {
    expect(manifestProblems(manifest({ ui: 'ui/dist/main.js', uiStyle: 'ui/dist/style.css' }), '0.1.0')).toEqual([]);
    expect(manifestProblems(manifest({ ui: './ui/main.mjs' }), '0.1.0')).toEqual([]);
  });

  it.each([
    [{ ui: '../other/main.js' }, 'spec.ui must be a path inside the plugin folder, without ".."'],
    [{ ui: 'ui/../../main.js' }, 'spec.ui must be a path inside the plugin folder, without ".."'],
    [{ ui: '/etc/main.js' }, 'spec.ui must be a path inside the plugin folder, without ".."'],
    [{ ui: 'ui/dist/main.ts' }, 'spec.ui must name a .js file'],
    [
      { ui: 'main.js' },
      'spec.ui must be in a folder of its own (such as ui/dist/main.js): that folder is served publicly',
    ],
    [{ ui: 'ui/dist/main.js', uiStyle: 'style.css' }, 'spec.uiStyle must be inside the folder of spec.ui (ui/dist/)'],
    [{ uiStyle: 'ui/style.css' }, 'spec.uiStyle needs spec.ui'],
    [{ ui: 7 }, 'spec.ui must be a file path'],
  ])('refuses %j', (spec, problem) => {
    expect(manifestProblems(manifest(spec), '0.1.0')).toEqual([problem]);
  });
});

describe.each(BACKENDS)('plugin UIs and the console events (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  let admin: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [UI_PLUGINS] });
    base = await t.server.listen();
    admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
  }, 60_000);
  afterAll(() => t?.close());

  const setEnabled = async (enable: boolean) => {
    const answer = await t.request('PUT', `${CONSOLE}/plugins/hello-ui/plugin-state`, { enable });
    expect(answer.status).toBe(200);
  };

  it('lists a started plugin UI to any signed-in user, and to nobody else', async () => {
    const jo = await userWithRoles(t, admin, 'jo', []);
    const listed = await as(t, jo)('GET', UIS);
    expect(listed.status).toBe(200);
    expect(listed.headers['cache-control']).toBe('no-store');
    const [ui] = listed.body.items;
    expect(listed.body.items).toHaveLength(1);
    expect(ui).toEqual({
      name: 'hello-ui',
      displayName: 'Hello UI',
      version: '1.2.3',
      entry: expect.stringMatching(/^\/plugins\/hello-ui\/ui\/[A-Za-z0-9_-]{12}\/main\.js$/),
      style: expect.stringMatching(/^\/plugins\/hello-ui\/ui\/[A-Za-z0-9_-]{12}\/style\.css$/),
    });
    expect((await t.anonymous('GET', UIS)).status).toBe(401);
  });

  it('serves the files of the bundle folder publicly and for good, and nothing else', async () => {
    const { entry, style } = (await t.request('GET', UIS)).body.items[0];
    const folder = entry.slice(0, -'main.js'.length);
    const script = await t.anonymous('GET', entry);
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.text).toContain("from './assets/greeting-abc.js'");
    expect((await t.anonymous('GET', `${folder}assets/greeting-abc.js`)).text).toContain("'hello'");
    expect((await t.anonymous('GET', style)).headers['content-type']).toBe('text/css; charset=utf-8');
    const zipped = await t.server.app.inject({ url: entry, headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(script.text);
    // `..` is resolved before routing: what it reaches is no UI file, and not public.
    for (const [url, status] of [
      [`${folder}../../index.js`, 401],
      [`${folder}..%2F..%2Findex.js`, 400],
      [`${folder}missing.js`, 404],
      ['/plugins/hello-ui/ui/AAAAAAAAAAAA/main.js', 404],
      [entry.replace('hello-ui', 'people'), 404],
    ] as const) {
      const answer = await t.anonymous('GET', url);
      expect([url, answer.status]).toEqual([url, status]);
      expect(answer.text).not.toContain('export default');
    }
  });

  it('serves every UI file under a policy that lets no page made of one run script (an .html, an .svg)', async () => {
    const { entry } = (await t.request('GET', UIS)).body.items[0];
    const folder = entry.slice(0, -'main.js'.length);
    for (const [file, type] of [
      ['page.html', 'text/html; charset=utf-8'],
      ['icon.svg', 'image/svg+xml'],
      ['main.js', 'text/javascript; charset=utf-8'],
    ]) {
      const answer = await t.anonymous('GET', `${folder}${file}`);
      expect([file, answer.status, answer.headers['content-type']]).toEqual([file, 200, type]);
      expect([file, answer.headers['content-security-policy']]).toEqual([
        file,
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox",
      ]);
    }
  });

  it('tells a signed-in user when plugin UIs start and stop, and takes the files away while stopped', async () => {
    const jo = await login(t, 'jo', 'jo-password-123');
    const events = watchHttp(base, EVENTS, { headers: jo.headers });
    expect((await events.response).statusCode).toBe(200);
    await events.until((e) => e.some((x) => x.type === 'READY'), 'READY');
    expect(events.events[0]).toEqual({ type: 'READY', uiPermissions: [] });
    const { entry } = (await t.request('GET', UIS)).body.items[0];
    await setEnabled(false);
    await events.until((e) => e.filter((x) => x.type === 'PLUGIN_UIS').length === 1, 'PLUGIN_UIS on stop');
    expect((await t.request('GET', UIS)).body.items).toEqual([]);
    expect((await t.anonymous('GET', entry)).status).toBe(404);
    await setEnabled(true);
    await events.until((e) => e.filter((x) => x.type === 'PLUGIN_UIS').length === 2, 'PLUGIN_UIS on start');
    expect((await t.request('GET', UIS)).body.items[0].entry).toBe(entry);
    events.close();
  });

  it('tells a user when their UI permissions change, and only then; the stream ends with the session', async () => {
    const kim = await userWithRoles(t, admin, 'kim', []);
    const other = await userWithRoles(t, admin, 'lee', []);
    const kims = watchHttp(base, EVENTS, { headers: kim.headers });
    const lees = watchHttp(base, EVENTS, { headers: other.headers });
    await kims.until((e) => e.length === 1, 'READY');
    await lees.until((e) => e.length === 1, 'READY');
    const bound = await t.request(
      'POST',
      BINDINGS,
      roleBinding('kim-posts-view', 'role-template-view-posts', { users: ['kim'] }),
    );
    expect(bound.status).toBe(201);
    await kims.until((e) => e.some((x) => x.type === 'PERMISSIONS'), 'PERMISSIONS');
    // The template's own UI permission, and the resource browser's: Kim may now list posts.
    expect(kims.events.find((x) => x.type === 'PERMISSIONS')).toEqual({
      type: 'PERMISSIONS',
      uiPermissions: ['system:posts:view', 'system:resources:view'],
    });
    // The event says what users/-/permissions says.
    const own = await as(t, kim)('GET', '/apis/api.console.svc.run/v1alpha1/users/-/permissions');
    expect(own.body.uiPermissions).toEqual(['system:posts:view', 'system:resources:view']);
    // Lee's UI permissions did not change: no event for them (Kim's arrived, so Lee's would have too).
    expect(lees.events.map((x) => x.type)).toEqual(['READY']);
    expect((await as(t, kim)('POST', '/logout')).status).toBeLessThan(300);
    await kims.ended;
    expect(kims.events.at(-1)).toMatchObject({ type: 'ERROR', object: { code: 401, reason: 'Unauthorized' } });
    lees.close();
  });

  it('refuses the stream to anonymous callers', async () => {
    expect((await t.anonymous('GET', EVENTS)).status).toBe(401);
  });
});
