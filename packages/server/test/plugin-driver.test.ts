import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommittedChange } from '../src/registry/object-service.js';
import { as, CONSOLE, login, userWithRoles } from './auth-harness.js';
import { PEOPLE_PLUGINS, PERSONS, pluginReport, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const PLUGINS = `${CONSOLE}/plugins`;
const PLUGIN_OBJECTS = '/apis/plugin.svc.run/v1alpha1/plugins';
const START_REQUEST = 'plugin.svc.run/start-requested';

/**
 * One driver (issue 29, item 2): the management API writes the Plugin's desired state and waits on its status; one
 * reconciler starts, stops and reports. Over HTTP, with the Plugin's writes read from the commit events.
 */
describe('the plugin driver', () => {
  let t: TestServer;

  const install = async (folder: string) => {
    const { body, headers } = multipart(await tgzOf(folder));
    return t.request('POST', `${PLUGINS}/install`, body, headers);
  };
  const setState = (name: string, body: unknown) => t.request('PUT', `${PLUGINS}/${name}/plugin-state`, body);
  /** The Plugin writes committed while `run` runs, and until the reconciler has nothing left to do. */
  const writesOf = async (name: string, run: () => Promise<void>) => {
    const writes: CommittedChange[] = [];
    const stop = t.server.objects.onCommitted((change) => {
      if (change.served.model.resource === 'plugin.svc.run/plugins' && change.object.metadata.name === name) {
        writes.push(change);
      }
    });
    try {
      await run();
      const runner = t.server.controllers.runners().find(({ runner }) => runner.spec.name === 'plugin-lifecycle');
      await expect.poll(() => runner!.runner.depth + runner!.runner.activeWorkers).toBe(0);
    } finally {
      stop();
    }
    return writes.map(({ type, object }) => ({
      type,
      enabled: (object.spec as { enabled: boolean }).enabled,
      phase: (object.status as { phase?: string } | undefined)?.phase,
      startRequest: object.metadata.annotations?.[START_REQUEST] !== undefined,
    }));
  };

  beforeAll(async () => {
    t = await startTestServer({ pluginsDirs: [], pluginStartTimeoutMs: 3000 });
  });
  afterAll(() => t.close());

  it('writes the Plugin four times for an install and an enable', async () => {
    const writes = await writesOf('people', async () => {
      expect((await install(path.join(PEOPLE_PLUGINS, 'people'))).status).toBe(201);
      expect((await setState('people', { enable: true })).body.status.phase).toBe('STARTED');
    });
    expect(writes).toEqual([
      // The install: the spec from plugin.yaml, with the first status (installed, not started) in the same create.
      { type: 'ADDED', enabled: false, phase: 'RESOLVED', startRequest: false },
      // The enable: the desired state, the one write the API makes.
      { type: 'MODIFIED', enabled: true, phase: 'RESOLVED', startRequest: false },
      // The reconciler: STARTING before the start (building indexes can take a while), then what came of it.
      { type: 'MODIFIED', enabled: true, phase: 'STARTING', startRequest: false },
      { type: 'MODIFIED', enabled: true, phase: 'STARTED', startRequest: false },
    ]);
  });

  it('writes nothing when asked for the state a plugin is in', async () => {
    const writes = await writesOf('people', async () => {
      expect((await setState('people', { enable: true })).status).toBe(200);
    });
    expect(writes).toEqual([]);
  });

  it('starts a plugin waiting for another once that one runs', async () => {
    expect((await install(path.join(FIXTURES, 'plugins-lifecycle/people-addon'))).status).toBe(201);
    expect((await setState('people', { enable: false })).body.status.phase).toBe('STOPPED');
    const waiting = await setState('people-addon', { enable: true });
    expect(waiting.status).toBe(200);
    expect(waiting.body.status).toMatchObject({
      phase: 'FAILED',
      conditions: [{ reason: 'DependenciesNotMet', message: 'required plugins are not started: people@^1.0.0' }],
    });
    expect((await setState('people', { enable: true })).body.status.phase).toBe('STARTED');
    await expect.poll(async () => (await pluginReport(t, 'people-addon')).phase).toBe('STARTED');
    expect((await setState('people-addon', { enable: false })).body.status.phase).toBe('STOPPED');
  });

  it('tries a failed start again when it is enabled again, and only then', async () => {
    expect((await install(path.join(FIXTURES, 'plugins-bad/throws'))).status).toBe(201);
    expect((await setState('throws', { enable: true })).body.status.phase).toBe('FAILED');
    // Another change of the object is not a reason to try again.
    const labelled = await writesOf('throws', async () => {
      const patched = await t.request(
        'PATCH',
        `${PLUGIN_OBJECTS}/throws`,
        { metadata: { labels: { team: 'a' } } },
        { 'content-type': 'application/merge-patch+json' },
      );
      expect(patched.status).toBe(200);
    });
    expect(labelled.map((write) => write.phase)).toEqual(['FAILED']);
    const again = await writesOf('throws', async () => {
      const answer = await setState('throws', { enable: true });
      expect(answer.status).toBe(200);
      expect(answer.body.status.phase).toBe('FAILED');
    });
    expect(again).toEqual([
      { type: 'MODIFIED', enabled: true, phase: 'FAILED', startRequest: true },
      { type: 'MODIFIED', enabled: true, phase: 'STARTING', startRequest: true },
      { type: 'MODIFIED', enabled: true, phase: 'FAILED', startRequest: true },
    ]);
  });

  it('asks for another start only of a super administrator, through the Plugin object too', async () => {
    const admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
    const manager = await userWithRoles(t, admin, 'manager', ['role-template-view-plugins']);
    await t.request('POST', '/api/v1alpha1/roles', {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'plugin-writer' },
      rules: [{ apiGroups: ['plugin.svc.run'], resources: ['plugins'], verbs: ['get', 'patch', 'update'] }],
    });
    const writer = await userWithRoles(t, admin, 'writer', ['plugin-writer']);
    const patch = { metadata: { annotations: { [START_REQUEST]: 'now' } } };
    const refused = await as(t, writer)('PATCH', `${PLUGIN_OBJECTS}/throws`, patch, {
      'content-type': 'application/merge-patch+json',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('only a super administrator may start plugin "throws"');
    expect((await as(t, manager)('PUT', `${PLUGINS}/throws/plugin-state`, { enable: true })).status).toBe(403);
  });

  it('restarts a running plugin on an upgrade, the same archive again included', async () => {
    const before = (await t.request('GET', `${PLUGIN_OBJECTS}/people`)).body.status;
    const { body, headers } = multipart(await tgzOf(path.join(PEOPLE_PLUGINS, 'people')));
    const upgraded = await t.request('POST', `${PLUGINS}/people/upgrade`, body, headers);
    expect(upgraded.status, upgraded.text).toBe(200);
    expect(upgraded.body.status).toMatchObject({ phase: 'STARTED', archiveDigest: before.archiveDigest });
    expect(upgraded.body.spec.archiveDigest).toBe(before.archiveDigest);
    expect(upgraded.body.status.lastStartTime > before.lastStartTime).toBe(true);
    expect((await t.request('GET', `${PERSONS}/ada`)).status).toBe(200);
  });

  it('names the code wanted in spec and the code held in status', async () => {
    const { body } = await t.request('GET', `${PLUGIN_OBJECTS}/people`);
    expect(body.spec.archiveDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(body.status.archiveDigest).toBe(body.spec.archiveDigest);
    const edited = await t.request('PUT', `${PLUGIN_OBJECTS}/people`, {
      ...body,
      spec: { ...body.spec, archiveDigest: 'f'.repeat(64) },
    });
    expect(edited.status).toBe(400);
    expect(edited.body.detail).toMatch(/spec\.archiveDigest/);
  });
});
