import type { PluginPhase } from '@svc/plugin-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import { ModelRegistry } from '../registry/model-registry.js';
import { ObjectService } from '../registry/object-service.js';
import { openSqliteStore } from '../store/sqlite.js';
import type { Store } from '../store/types.js';
import type { PluginRecord } from './plugin-host.js';
import { nextStatus, pluginModel } from './plugin-model.js';
import type { PluginObject } from './plugin-object.js';
import { PluginObjects } from './plugin-objects.js';
import { writeStatus } from './plugin-status.js';
import { PluginFollower } from './plugin-status-wait.js';

const record: PluginRecord = {
  name: 'demo',
  folder: '/plugins/demo',
  source: 'archive',
  digest: 'a'.repeat(64),
  manifest: {
    apiVersion: 'plugin.svc.run/v1alpha1',
    kind: 'Plugin',
    metadata: { name: 'demo' },
    spec: { version: '1.0.0', requires: '*', main: 'index.js' },
  },
};
const status = (phase: PluginPhase) =>
  nextStatus(undefined, phase, { status: phase === 'STARTED' ? 'True' : 'False', reason: phase, message: '' });
const phaseOf = (object: PluginObject) => object.status?.phase;

/** Waiting on a Plugin's status and writing it, on a real store (SQLite in memory). */
describe('plugin status: waiting and writing', () => {
  let store: Store;
  let objects: ObjectService;
  let plugins: PluginObjects;
  let created: PluginObject;

  beforeAll(async () => {
    store = openSqliteStore({ path: ':memory:' });
    const served = await new ModelRegistry(store).register(
      normalizeModelDefinition(pluginModel, { kind: 'system' }),
      'core',
    );
    objects = new ObjectService(store);
    plugins = new PluginObjects(objects, served);
    created = await plugins.create(record, false, status('RESOLVED'));
  });
  afterAll(() => store.close());

  const follow = () => new PluginFollower(objects, plugins.served, 'demo');

  it('creates a Plugin with its first status, in one write', async () => {
    expect(created).toMatchObject({
      spec: { enabled: false, archiveDigest: record.digest },
      status: { phase: 'RESOLVED' },
    });
    expect(phaseOf(await plugins.get('demo'))).toBe('RESOLVED');
  });

  it('answers the state it starts from when that one passes', async () => {
    const follower = follow();
    expect(await follower.until(created, (o) => phaseOf(o) === 'RESOLVED', 1000)).toEqual({
      object: created,
      settled: true,
    });
    follower.close();
  });

  it('answers the first later commit that passes, never one from before the state it starts from', async () => {
    const follower = follow();
    const early = await plugins.updateStatus(await plugins.get('demo'), status('STARTED'));
    const stopped = await plugins.updateStatus(early, status('STOPPED'));
    const waiting = follower.until(stopped, (o) => phaseOf(o) === 'STARTED', 5000);
    const enabled = await plugins.setEnabled('demo', true, { kind: 'system' });
    const started = await plugins.updateStatus(enabled, status('STARTED'));
    const outcome = await waiting;
    follower.close();
    expect(outcome).toEqual({ object: started, settled: true });
  });

  it('gives up at the time limit, answering the latest state known', async () => {
    const follower = follow();
    const current = await plugins.get('demo');
    const outcome = await follower.until(current, () => false, 50);
    follower.close();
    expect(outcome).toEqual({ object: current, settled: false });
  });

  it('writes a report over another report that landed meanwhile', async () => {
    const stale = await plugins.get('demo');
    await plugins.updateStatus(stale, status('FAILED'));
    const written = await writeStatus(plugins, stale, () => status('STOPPED'));
    expect(phaseOf(written!)).toBe('STOPPED');
  });

  it('drops a report made before a change of the desired state: the reconcile that change queued reports', async () => {
    const stale = await plugins.get('demo');
    await plugins.setEnabled('demo', false, { kind: 'system' });
    expect(await writeStatus(plugins, stale, () => status('STARTED'))).toBeUndefined();
    expect(phaseOf(await plugins.get('demo'))).toBe('STOPPED');
    const asked = await plugins.get('demo');
    await plugins.requestStart('demo', { kind: 'system' });
    expect(await writeStatus(plugins, asked, () => status('FAILED'))).toBeUndefined();
  });

  it('stops waiting when the Plugin is deleted', async () => {
    const follower = follow();
    const current = await plugins.get('demo');
    const waiting = follower.until(current, () => false, 5000);
    await objects.patch(plugins.served, 'demo', (o) => ({ ...o, metadata: { ...o.metadata, finalizers: [] } }));
    await objects.delete(plugins.served, 'demo');
    const outcome = await waiting;
    follower.close();
    expect(outcome.settled).toBe(false);
    expect(outcome.object.metadata.name).toBe('demo');
  });
});
