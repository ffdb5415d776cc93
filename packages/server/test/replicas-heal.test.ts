/**
 * A replica that falls behind the compacted history heals itself: paused (SIGSTOP) while the leader writes and
 * compacts past it, it resumes, finds its next revision gone, lists the store again while not ready, and serves the
 * current state without a restart (docs/api.md "Replicas").
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { PERSONS, PG_URL, person } from './harness.js';
import { call, leaderOf, type Replica, type ReplicaSet, replicaSet, signIn } from './replica-harness.js';
import { watchHttp } from './watch-client.js';

/** The store's revision and compaction point (the `meta` row of the schema). */
async function meta(schema: string): Promise<{ revision: number; compacted: number }> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT revision, compacted FROM ${schema}.meta WHERE id = 1`);
    return { revision: Number(rows[0].revision), compacted: Number(rows[0].compacted) };
  } finally {
    await client.end();
  }
}

const names = (list: { items: Array<{ metadata: { name: string } }> }) => list.items.map((i) => i.metadata.name).sort();

describe('a replica behind the compacted history', () => {
  let set: ReplicaSet;
  let a: Replica;
  let b: Replica;
  let admin: Record<string, string>;

  beforeAll(async () => {
    set = await replicaSet('heal');
    // Ten events of history: a few writes are enough to compact past a paused replica.
    a = await set.start('a', { SVC_WATCH_HISTORY: '10' });
    b = await set.start('b', { SVC_WATCH_HISTORY: '10' });
    admin = await signIn(a);
  }, 120_000);
  afterAll(() => set?.close(), 60_000);

  it('lists the store again while not ready, then serves the current state without a restart', async () => {
    expect((await leaderOf(set.schema))?.holder).toBe('a');
    for (const name of ['kept', 'changed', 'removed']) {
      expect(
        (await call(a, 'POST', PERSONS, admin, person(name, { name: `before ${name}` }, { test: 'heal' }))).status,
      ).toBe(201);
    }
    await eventually(
      async () => (await call(b, 'GET', `${PERSONS}?labelSelector=test=heal`, admin)).body.total === 3,
      'b follows',
    );
    const watch = watchHttp(b.url, `${PERSONS}?watch=true&labelSelector=test=heal`, { headers: admin });
    await watch.until((events) => events.length >= 3, 'the three ADDED on b');

    // b stops following; a writes, and its compaction (every 10 s on the leader) drops what b has not read.
    const paused = await meta(set.schema);
    b.child.kill('SIGSTOP');
    try {
      const changed = await call(a, 'GET', `${PERSONS}/changed`, admin);
      const update = { ...changed.body, spec: { ...changed.body.spec, name: 'after changed' } };
      expect((await call(a, 'PUT', `${PERSONS}/changed`, admin, update)).status).toBe(200);
      expect((await call(a, 'DELETE', `${PERSONS}/removed`, admin)).status).toBe(200);
      for (let i = 0; i < 15; i++) {
        expect(
          (await call(a, 'POST', PERSONS, admin, person(`later-${i}`, { name: `later ${i}` }, { test: 'heal' })))
            .status,
        ).toBe(201);
      }
      const compactedPast = async () => {
        await new Promise((r) => setTimeout(r, 200));
        return (await meta(set.schema)).compacted > paused.revision + 1;
      };
      await eventually(compactedPast, 'compaction past b', 30_000);
    } finally {
      b.child.kill('SIGCONT');
    }

    // b finds its history gone: its watch ends with a 410, it lists again, and it is ready once more.
    await watch.until((events) => events.some((e) => e.type === 'ERROR'), 'the 410 on the watch of b', 30_000);
    const error = watch.events.find((e) => e.type === 'ERROR')!;
    expect(error.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    await eventually(
      async () => /listed the store again at revision \d+; serving/.test(b.output()),
      'the re-list',
      30_000,
    );
    expect(b.output()).toContain('fell behind the compacted history: listing the store again');
    await eventually(async () => (await b.fetch('/readyz')).status === 200, 'b ready again');

    // Its indexes hold the current state: the same names as a, the change and the removal, a field selector on them.
    const onA = await call(a, 'GET', `${PERSONS}?labelSelector=test=heal`, admin);
    const onB = await call(b, 'GET', `${PERSONS}?labelSelector=test=heal`, admin);
    expect(onB.body.total).toBe(17);
    expect(names(onB.body)).toEqual(names(onA.body));
    expect(names(onB.body)).not.toContain('removed');
    expect((await call(b, 'GET', `${PERSONS}/removed`, admin)).status).toBe(404);
    const byField = await call(b, 'GET', `${PERSONS}?fieldSelector=spec.name=after%20changed`, admin);
    expect(names(byField.body)).toEqual(['changed']);
    expect((await call(b, 'GET', `${PERSONS}?fieldSelector=spec.name=before%20changed`, admin)).body.total).toBe(0);

    // And it follows new writes as before, through its index.
    expect(
      (await call(a, 'POST', PERSONS, admin, person('after-heal', { name: 'after heal' }, { test: 'heal' }))).status,
    ).toBe(201);
    await eventually(
      async () => (await call(b, 'GET', `${PERSONS}?fieldSelector=spec.name=after%20heal`, admin)).body.total === 1,
      'b follows after healing',
    );
  }, 120_000);
});
