/**
 * What several servers of one PostgreSQL store rely on, against a real database: the lease that picks one leader
 * (never two at once, handed over when the holder's connection dies), notices of other servers' writes, and unique
 * values claimed in the database.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/eventually.js';
import { openPostgresStore } from './postgres.js';
import { closeAndDrop, freshSchema, PG_TEST_URL } from './postgres-fixtures.suite.js';
import { encodeAs } from './store-fixtures.suite.js';
import { type Store, type StoreNotice, UniqueClaimError } from './types.js';

const connectionString = PG_TEST_URL;
const schema = freshSchema('svc_replicas');
const stores: Store[] = [];
const open = async (replicaId: string) => {
  const store = await openPostgresStore({ connectionString, schema, replicaId });
  stores.push(store);
  return store;
};
afterAll(() => closeAndDrop(schema, stores));

describe('PostgreSQL store shared by several servers', () => {
  it('gives the lease to one server at a time, and to another when the holder connection is killed', async () => {
    const ids = [`one-${schema}`, `two-${schema}`, `three-${schema}`];
    const servers = await Promise.all(ids.map(open));
    const leases = servers.map((store) => store.lease('duty'));
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, leases.filter((l) => l.held).length)), 2);
    try {
      await eventually(() => leases.some((l) => l.held), 'a first holder');
      const first = leases.findIndex((l) => l.held);
      expect(leases[first]!.epoch).toBe(1);
      // Kill the holder's connection from outside, as a crash or a network cut would end it.
      const admin = new pg.Client({ connectionString });
      await admin.connect();
      const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
        `svc lease duty ${ids[first]}`.slice(0, 63),
      ]);
      expect(rows).toHaveLength(1);
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      await admin.end();
      await eventually(() => leases.some((l, i) => i !== first && l.held), 'a second holder');
      const second = leases.find((l) => l.held)!;
      expect(second.epoch).toBe(2);
      await eventually(() => !leases[first]!.held || leases[first]!.epoch > 2, 'the first to know');
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBe(1);
  });

  it("tells one server of another's writes and secret changes", async () => {
    const [writer, reader] = await Promise.all([open('writer'), open('reader')]);
    const heard: StoreNotice[] = [];
    reader.listen((notice) => heard.push(notice));
    await eventually(() => heard.some((n) => n.type === 'reset'), 'the listening connection');
    const written = await writer.create('widgets', 'w1', encodeAs('one'));
    await writer.secrets.put('security.svc.run/sessions', 'abc', Buffer.from('{}'));
    await eventually(() => heard.length >= 3, 'two notices');
    expect(heard.slice(1)).toEqual([
      { type: 'revision', revision: written.revision },
      { type: 'secret', kind: 'security.svc.run/sessions', name: 'abc' },
    ]);
  });

  it('lets one object hold a unique value, whichever server writes, until it lets go', async () => {
    const [left, right] = await Promise.all([open('left'), open('right')]);
    const claim = [{ index: 'spec.email', value: 'a@example.com' }];
    const outcomes = await Promise.allSettled([
      left.create('people', 'p1', encodeAs('p1'), claim),
      right.create('people', 'p2', encodeAs('p2'), claim),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(UniqueClaimError);
    expect(refused.reason.claim).toEqual({ index: 'spec.email', value: 'a@example.com' });
    const holder = (await left.get('people', 'p1')) ? 'p1' : 'p2';
    const loser = holder === 'p1' ? 'p2' : 'p1';
    expect(await left.get('people', loser)).toBeUndefined();
    // The holder moves to another value; the first is free for the other object.
    const held = (await left.get('people', holder))!;
    await left.update('people', holder, held.revision, encodeAs('moved'), [{ index: 'spec.email', value: 'b@x.org' }]);
    await right.create('people', loser, encodeAs(loser), claim);
    await expect(
      right.create('people', 'p3', encodeAs('p3'), [{ index: 'spec.email', value: 'b@x.org' }]),
    ).rejects.toThrow(UniqueClaimError);
    // A delete lets its values go.
    const moved = (await left.get('people', holder))!;
    await left.delete('people', holder, moved.revision);
    await right.create('people', 'p3', encodeAs('p3'), [{ index: 'spec.email', value: 'b@x.org' }]);
  });
});
