/**
 * An upgrade that fails to start, on two replicas sharing PostgreSQL (`svc serve` processes over HTTP): both end up
 * running the previous version again, and status says so for each.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { FLIP_ROUTE, flipArchive } from './flip-plugin.js';
import { multipart } from './plugin-archives.js';
import { call, type Replica, type ReplicaSet, replicaSet, signIn } from './replica-harness.js';

const PLUGINS = '/apis/api.console.svc.run/v1alpha1/plugins';
const FLIP_OBJECT = '/apis/plugin.svc.run/v1alpha1/plugins/flip';

describe('two replicas and an upgrade whose start fails', () => {
  let set: ReplicaSet;
  let a: Replica;
  let b: Replica;
  let admin: Record<string, string>;
  let scratch: string;

  const upload = async (replica: Replica, url: string, archive: Buffer) => {
    const { body, headers } = multipart(archive);
    const response = await replica.fetch(url, { method: 'POST', headers: { ...admin, ...headers }, body });
    return { status: response.status, body: (await response.json()) as any };
  };
  const reports = async () =>
    ((await call(a, 'GET', FLIP_OBJECT, admin)).body.status?.replicas ?? [])
      .map((r: any) => `${r.name}:${r.phase}:${r.version}`)
      .join();
  const everyReplicaServes = (version: string) =>
    eventually(async () => {
      for (const replica of [a, b]) {
        if ((await call(replica, 'GET', FLIP_ROUTE, admin)).body?.version !== version) return false;
      }
      return (await reports()) === `a:STARTED:${version},b:STARTED:${version}`;
    }, `both replicas running flip ${version}`);

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'svc-replica-rollback-'));
    set = await replicaSet('rollback');
    a = await set.start('a');
    b = await set.start('b');
    admin = await signIn(a);
  }, 120_000);
  afterAll(async () => {
    await set?.close();
    await rm(scratch, { recursive: true, force: true });
  }, 60_000);

  it('run 1.0.0 again on both after 2.0.0 failed to start, with the failure in status', async () => {
    expect((await upload(a, `${PLUGINS}/install`, await flipArchive(scratch, '1.0.0', 'serves'))).status).toBe(201);
    expect((await call(a, 'PUT', `${PLUGINS}/flip/plugin-state`, admin, { enable: true })).status).toBe(200);
    await everyReplicaServes('1.0.0');

    // Through b, which does not lead: the failure it reports is in status all the same.
    const upgraded = await upload(b, `${PLUGINS}/flip/upgrade`, await flipArchive(scratch, '2.0.0', 'start-throws'));
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.spec.version).toBe('1.0.0');
    expect(upgraded.body.status.lastUpgrade).toMatchObject({
      version: '2.0.0',
      reason: 'UpgradeRolledBack',
      message: 'boom',
      rolledBackTo: { version: '1.0.0' },
    });
    await everyReplicaServes('1.0.0');
    const stored = (await call(a, 'GET', FLIP_OBJECT, admin)).body;
    expect(stored.status.lastUpgrade).toMatchObject({ version: '2.0.0', message: 'boom' });
    expect(stored.spec.archiveDigest).toBe(upgraded.body.spec.archiveDigest);
  });

  it('run a good 3.0.0 on both afterwards, the failure cleared', async () => {
    const upgraded = await upload(b, `${PLUGINS}/flip/upgrade`, await flipArchive(scratch, '3.0.0', 'serves'));
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.spec.version).toBe('3.0.0');
    await everyReplicaServes('3.0.0');
    await eventually(
      async () => (await call(a, 'GET', FLIP_OBJECT, admin)).body.status.lastUpgrade === undefined,
      'the failed upgrade cleared from status',
    );
  });
});
