import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { PEOPLE_PLUGINS, PERSONS, person, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { multipart, peopleV2, rawTgz, tgzOf, zipOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const PLUGINS = `${CONSOLE}/plugins`;
const PLUGIN_OBJECTS = '/apis/plugin.svc.run/v1alpha1/plugins';
const STATS = '/apis/console.api.people.svc.run/v1alpha1/stats';
const VIEW_TEMPLATE = '/api/v1alpha1/roles/people-role-view-persons';

/** The whole life of the people plugin, installed from an archive on a running server, over HTTP. */
describe('plugin lifecycle over HTTP', () => {
  let t: TestServer;
  let admin: Session;
  let viewer: Session;
  let scratch: string;

  const install = async (archive: Buffer, session?: Session) => {
    const { body, headers } = multipart(archive);
    return session
      ? as(t, session)('POST', `${PLUGINS}/install`, body, headers)
      : t.request('POST', `${PLUGINS}/install`, body, headers);
  };
  const setState = (name: string, body: unknown) => t.request('PUT', `${PLUGINS}/${name}/plugin-state`, body);
  const viewerCan = async (method: string, url: string) =>
    (await t.request('POST', `${CONSOLE}/accessreviews`, { method, path: url, user: 'viewer' })).body
      .allowed as boolean;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'svc-lifecycle-'));
    t = await startTestServer({ pluginsDirs: [], pluginStartTimeoutMs: 3000 });
    admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    await t.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('installs the people plugin from a .tgz: a Plugin object, RESOLVED and not started', async () => {
    const response = await install(await tgzOf(path.join(PEOPLE_PLUGINS, 'people')));
    expect(response.status, response.text).toBe(201);
    expect(response.headers.location).toBe(`${PLUGIN_OBJECTS}/people`);
    expect(response.body).toMatchObject({
      kind: 'Plugin',
      metadata: { name: 'people', finalizers: ['plugin.svc.run/uninstall'] },
      spec: { version: '1.0.0', enabled: false, displayName: 'People' },
      status: { phase: 'RESOLVED', source: 'archive' },
    });
    expect((await t.request('GET', PERSONS)).status).toBe(404);
    expect((await t.request('GET', `${PLUGIN_OBJECTS}/people`)).body.status.phase).toBe('RESOLVED');
  });

  it('refuses a second install of the same name', async () => {
    const response = await install(await tgzOf(path.join(PEOPLE_PLUGINS, 'people')));
    expect(response.status).toBe(409);
    expect(response.body.detail).toMatch(/already installed/);
  });

  it('starts it: STARTED with lastStartTime, its models, custom API and declared objects appear', async () => {
    const before = await t.server.store.currentRevision();
    const response = await setState('people', { enable: true });
    expect(response.status, response.text).toBe(200);
    expect(response.body.spec.enabled).toBe(true);
    expect(response.body.status).toMatchObject({
      phase: 'STARTED',
      lastStartTime: expect.any(String),
      conditions: [{ type: 'Ready', status: 'True', reason: 'Started' }],
    });
    expect((await t.request('GET', `${PERSONS}/ada`)).status).toBe(200);
    expect((await t.request('GET', STATS)).body.total).toBe(3);
    expect((await t.request('GET', VIEW_TEMPLATE)).body.metadata.labels['plugin.svc.run/plugin-name']).toBe('people');
    // The history shows the order: STARTING was recorded before the model's objects were written (its indexes were
    // built inside start), and STARTED only after them.
    const changes = await t.server.store.changesSince(before);
    const phases = changes
      .filter((c) => c.resource === 'plugin.svc.run/plugins')
      .map((c) => ({ revision: c.revision, phase: JSON.parse(c.value.toString()).status?.phase }));
    const starting = phases.find((p) => p.phase === 'STARTING')!.revision;
    const started = phases.find((p) => p.phase === 'STARTED')!.revision;
    // (Its controller then writes status to the persons: those come after STARTED, as they should.)
    const declared = changes.filter(
      (c) => c.type === 'ADDED' && (c.resource === 'people.svc.run/persons' || c.name.startsWith('people-role-')),
    );
    expect(declared.length).toBeGreaterThan(0);
    expect(declared.every((c) => c.revision > starting && c.revision < started)).toBe(true);
  });

  it('gives exactly what its role templates grant', async () => {
    viewer = await userWithRoles(t, admin, 'viewer', ['people-role-view-persons']);
    expect((await as(t, viewer)('GET', PERSONS)).status).toBe(200);
    expect((await as(t, viewer)('GET', STATS)).status).toBe(200);
    expect((await as(t, viewer)('POST', PERSONS, person('nope'))).status).toBe(403);
    const permissions = await as(t, viewer)('GET', `${CONSOLE}/users/-/permissions`);
    expect(permissions.body.uiPermissions).toContain('plugin:people:view');
    expect((await t.request('POST', PERSONS, person('zoe', { age: 7 }))).status).toBe(201);
  });

  it('stops it: routes 404 at once, role templates gone, grants lapse, data kept', async () => {
    const response = await setState('people', { enable: false });
    expect(response.status, response.text).toBe(200);
    expect(response.body.status).toMatchObject({
      phase: 'STOPPED',
      conditions: [{ status: 'False', reason: 'Disabled' }],
    });
    expect((await t.request('GET', PERSONS)).status).toBe(404);
    expect((await t.request('GET', STATS)).status).toBe(404);
    expect((await t.request('GET', VIEW_TEMPLATE)).status).toBe(404);
    expect(await viewerCan('GET', PERSONS)).toBe(false);
    const permissions = await as(t, viewer)('GET', `${CONSOLE}/users/-/permissions`);
    expect(permissions.body.uiPermissions).not.toContain('plugin:people:view');
    // The data of its model stays stored (read straight from the store: no route serves it now).
    expect(await t.server.store.get('people.svc.run/persons', 'zoe')).toBeTruthy();
  });

  it('starts it again: data and grants are back', async () => {
    expect((await setState('people', { enable: true })).body.status.phase).toBe('STARTED');
    expect((await t.request('GET', `${PERSONS}/zoe`)).body.spec.age).toBe(7);
    expect(await viewerCan('GET', PERSONS)).toBe(true);
    expect((await as(t, viewer)('GET', `${PERSONS}/zoe`)).status).toBe(200);
  });

  it('upgrades it to a version with a new field and index: index built before STARTED, data kept', async () => {
    // On 1.0.0 the field is unknown to the schema and to the indexes.
    expect((await t.request('GET', `${PERSONS}?fieldSelector=spec.nickname%3Dace`)).status).toBe(400);
    const v2 = await peopleV2(path.join(PEOPLE_PLUGINS, 'people'), scratch);
    const { body, headers } = multipart(await tgzOf(v2));
    const response = await t.request('POST', `${PLUGINS}/people/upgrade`, body, headers);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ spec: { version: '1.1.0', enabled: true }, status: { phase: 'STARTED' } });
    expect((await t.request('POST', PERSONS, person('ace', { nickname: 'ace' }))).status).toBe(201);
    const found = await t.request('GET', `${PERSONS}?fieldSelector=spec.nickname%3Dace`);
    expect(found.status).toBe(200);
    expect(found.body.items.map((p: any) => p.metadata.name)).toEqual(['ace']);
    expect((await t.request('GET', `${PERSONS}/zoe`)).status).toBe(200);
    // Restarted on the same code, the index is rebuilt from the store before the plugin is STARTED again.
    await setState('people', { enable: false });
    expect((await setState('people', { enable: true })).body.status.phase).toBe('STARTED');
    expect((await t.request('GET', `${PERSONS}?fieldSelector=spec.nickname%3Dace`)).body.total).toBe(1);
  });

  it("refuses an upgrade with another plugin's archive", async () => {
    const { body, headers } = multipart(await tgzOf(path.join(FIXTURES, 'plugins-bad/throws')));
    const response = await t.request('POST', `${PLUGINS}/people/upgrade`, body, headers);
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/holds plugin "throws", not "people"/);
  });

  it('keeps a required plugin running while a dependent runs, and refuses an upgrade that breaks the dependent', async () => {
    expect((await install(await tgzOf(path.join(FIXTURES, 'plugins-lifecycle/people-addon')))).status).toBe(201);
    expect((await setState('people-addon', { enable: true })).body.status.phase).toBe('STARTED');
    expect((await t.request('GET', '/apis/api.people-addon.svc.run/v1alpha1/headcount')).body.persons).toBeGreaterThan(
      0,
    );
    const stop = await setState('people', { enable: false });
    expect(stop.status).toBe(409);
    expect(stop.body.detail).toMatch(/required by running plugins: people-addon/);
    const remove = await t.request('DELETE', `${PLUGIN_OBJECTS}/people`);
    expect(remove.status).toBe(409);
    expect((await t.request('GET', PERSONS)).status).toBe(200);
    expect((await setState('people-addon', { enable: false })).body.status.phase).toBe('STOPPED');
  });

  it('lets only spec.enabled be changed through the Plugin object, and no Plugin be created by hand', async () => {
    const current = (await t.request('GET', `${PLUGIN_OBJECTS}/people`)).body;
    const edited = await t.request('PUT', `${PLUGIN_OBJECTS}/people`, {
      ...current,
      spec: { ...current.spec, version: '9.9.9' },
    });
    expect(edited.status).toBe(400);
    expect(edited.body.detail).toMatch(/spec\.version/);
    const created = await t.request('POST', PLUGIN_OBJECTS, { ...current, metadata: { name: 'forged' } });
    expect(created.status).toBe(405);
  });

  it('serves the management API to holders of the plugin templates only', async () => {
    const archive = await tgzOf(path.join(FIXTURES, 'plugins-bad/throws'));
    expect((await install(archive, viewer)).status).toBe(403);
    expect((await as(t, viewer)('GET', PLUGINS)).status).toBe(403);
    const manager = await userWithRoles(t, admin, 'plugin-manager', ['role-template-manage-plugins']);
    const listed = await as(t, manager)('GET', `${PLUGINS}?sort=metadata.name`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((p: any) => [p.metadata.name, p.status.phase])).toEqual([
      ['people', 'STARTED'],
      ['people-addon', 'STOPPED'],
    ]);
    expect((await install(archive, manager)).status).toBe(201);
  });

  it('fails a plugin whose start throws, with the reason in status and in its logs; the host carries on', async () => {
    const response = await setState('throws', { enable: true });
    expect(response.status).toBe(200);
    expect(response.body.status).toMatchObject({
      phase: 'FAILED',
      conditions: [{ status: 'False', reason: 'StartFailed', message: expect.stringMatching(/unreachable/) }],
    });
    const logs = await t.request('GET', `${PLUGINS}/throws/logs`);
    expect(logs.body.entries.some((e: any) => e.level === 'error' && /unreachable/.test(e.message))).toBe(true);
    expect((await t.request('GET', '/apis/throws.svc.run/v1/booms')).status).toBe(404);
    expect((await t.request('GET', PERSONS)).status).toBe(200);
  });

  it('fails a plugin whose start hangs, naming the time limit', async () => {
    expect((await install(await tgzOf(path.join(FIXTURES, 'plugins-bad/hangs')))).status).toBe(201);
    const response = await setState('hangs', { enable: true });
    expect(response.body.status.conditions[0].message).toMatch(/did not finish within 3000 ms/);
    expect(response.body.status.phase).toBe('FAILED');
  });

  it('stops a plugin whose stop hangs, after the time limit, and keeps managing the others', async () => {
    expect((await install(await tgzOf(path.join(FIXTURES, 'plugins-lifecycle/stop-hangs')))).status).toBe(201);
    expect((await setState('stop-hangs', { enable: true })).body.status.phase).toBe('STARTED');
    expect((await t.request('GET', '/apis/api.stop-hangs.svc.run/v1/ping')).status).toBe(200);
    const stopped = await setState('stop-hangs', { enable: false });
    expect(stopped.body.status.phase).toBe('STOPPED');
    expect((await t.request('GET', '/apis/api.stop-hangs.svc.run/v1/ping')).status).toBe(404);
    const logs = await t.request('GET', `${PLUGINS}/stop-hangs/logs`);
    expect(
      logs.body.entries.some((e: any) => /stop of plugin "stop-hangs" did not finish within 3000 ms/.test(e.message)),
    ).toBe(true);
  });

  it("fails a plugin that declares a model in another plugin's group", async () => {
    expect((await install(await tgzOf(path.join(FIXTURES, 'plugins-bad/foreign-group')))).status).toBe(201);
    const response = await setState('foreign-group', { enable: true });
    expect(response.body.status).toMatchObject({
      phase: 'FAILED',
      conditions: [{ message: expect.stringMatching(/people\.svc\.run/) }],
    });
    expect((await t.request('GET', PERSONS)).status).toBe(200);
  });

  it('refuses a plugin that requires a plugin that is not installed, naming it', async () => {
    const response = await install(await tgzOf(path.join(FIXTURES, 'plugins-bad/needs-missing')));
    expect(response.status).toBe(409);
    expect(response.body.detail).toMatch(/nowhere@>=1\.0\.0/);
    expect((await t.request('GET', `${PLUGIN_OBJECTS}/needs-missing`)).status).toBe(404);
  });

  it('fails a plugin whose role template aggregates into super-role', async () => {
    expect((await install(await tgzOf(path.join(FIXTURES, 'plugins-lifecycle/super-aggregator')))).status).toBe(201);
    const response = await setState('super-aggregator', { enable: true });
    expect(response.body.status).toMatchObject({
      phase: 'FAILED',
      conditions: [{ message: expect.stringMatching(/super-role/) }],
    });
    expect((await t.request('GET', '/api/v1alpha1/roles/super-aggregator-role-manage-all')).status).toBe(404);
  });

  it('installs from a .zip too; starts a plugin whose role template is misnamed, with a warning in its logs', async () => {
    expect((await install(await zipOf(path.join(FIXTURES, 'plugins-lifecycle/misnamed-template')))).status).toBe(201);
    expect((await setState('misnamed-template', { enable: true })).body.status.phase).toBe('STARTED');
    const logs = await t.request('GET', `${PLUGINS}/misnamed-template/logs`);
    expect(logs.body.entries).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: expect.stringMatching(
          /"notes-readers" should be named misnamed-template-role-<view\|manage>-<resources>/,
        ),
      }),
    );
  });

  it('follows spec.enabled written through the Plugin object, as any client would', async () => {
    const patched = await t.request(
      'PATCH',
      `${PLUGIN_OBJECTS}/misnamed-template`,
      { spec: { enabled: false } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(patched.status, patched.text).toBe(200);
    for (let i = 0; i < 200; i++) {
      if ((await t.request('GET', `${PLUGIN_OBJECTS}/misnamed-template`)).body.status.phase === 'STOPPED') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await t.request('GET', `${PLUGIN_OBJECTS}/misnamed-template`)).body.status.phase).toBe('STOPPED');
    expect((await t.request('GET', '/api/v1alpha1/roles/notes-readers')).status).toBe(404);
  });

  it('refuses an archive that writes outside its folder, leaving nothing behind', async () => {
    const evil = rawTgz([
      {
        name: 'plugin.yaml',
        content:
          'apiVersion: plugin.svc.run/v1alpha1\nkind: Plugin\nmetadata: {name: evil}\nspec: {version: 1.0.0, requires: ">=0.1.0", main: index.js}\n',
      },
      { name: 'index.js', content: 'export default { start() {} };' },
      { name: '../../escaped.js', content: 'pwned' },
    ]);
    const response = await install(evil);
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/\.\./);
    const installed = path.join(t.dataDir, 'plugins');
    expect((await readdir(installed)).filter((f) => f.startsWith('.') || f === 'evil')).toEqual([]);
    await expect(stat(path.join(t.dataDir, 'escaped.js'))).rejects.toThrow();
    await expect(stat(path.join(path.dirname(t.dataDir), 'escaped.js'))).rejects.toThrow();
  });

  it('answers bad uploads and bad state changes with a 4xx naming the problem', async () => {
    const notArchive = await install(Buffer.from('just some text'));
    expect(notArchive.status).toBe(400);
    const { body, headers } = multipart(Buffer.from('x'), 'other');
    const noFile = await t.request('POST', `${PLUGINS}/install`, body, headers);
    expect(noFile.status).toBe(400);
    expect(noFile.body.detail).toMatch(/"file"/);
    expect((await t.request('POST', `${PLUGINS}/install`, { file: 'x' })).status).toBe(415);
    const badState = await setState('people', { enable: 'yes' });
    expect(badState.status).toBe(400);
    expect(badState.body.detail).toMatch(/enable/);
    expect((await setState('nothing-here', { enable: true })).status).toBe(404);
  });

  it('answers at once with "async": true, and gets there', async () => {
    const response = await setState('people-addon', { enable: true, async: true });
    expect(response.status).toBe(202);
    for (let i = 0; i < 200; i++) {
      const { body } = await t.request('GET', `${PLUGIN_OBJECTS}/people-addon`);
      if (body.status.phase === 'STARTED') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await t.request('GET', `${PLUGIN_OBJECTS}/people-addon`)).body.status.phase).toBe('STARTED');
    expect((await setState('people-addon', { enable: false })).status).toBe(200);
  });

  it("uninstalls it: stopped, code removed, Plugin object gone, users' objects of its model kept", async () => {
    expect((await t.request('DELETE', `${PLUGIN_OBJECTS}/people-addon`)).status).toBeLessThan(300);
    const response = await t.request('DELETE', `${PLUGIN_OBJECTS}/people`);
    expect(response.status).toBeLessThan(300);
    for (let i = 0; i < 200 && (await t.request('GET', `${PLUGIN_OBJECTS}/people`)).status !== 404; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await t.request('GET', `${PLUGIN_OBJECTS}/people`)).status).toBe(404);
    expect((await t.request('GET', PERSONS)).status).toBe(404);
    expect((await t.request('GET', VIEW_TEMPLATE)).status).toBe(404);
    await expect(stat(path.join(t.dataDir, 'plugins/people'))).rejects.toThrow();
    expect(await t.server.store.get('people.svc.run/persons', 'zoe')).toBeTruthy();
    // Installed again, it finds its data.
    expect((await install(await tgzOf(path.join(PEOPLE_PLUGINS, 'people')))).status).toBe(201);
    expect((await setState('people', { enable: true })).body.status.phase).toBe('STARTED');
    expect((await t.request('GET', `${PERSONS}/zoe`)).body.spec.age).toBe(7);
  });
});
