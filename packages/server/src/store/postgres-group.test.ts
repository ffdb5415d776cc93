/**
 * Group commit and fencing on a real PostgreSQL: writes requested together commit as one transaction, each checked on
 * its own (a refused write takes no revision and fails none of its neighbours), and a write made for a leader whose
 * lease has moved on is refused by the database.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/eventually.js';
import { runFenced } from './fence.js';
import { openPostgresStore } from './postgres.js';
import { closeAndDrop, freshSchema, PG_TEST_URL } from './postgres-fixtures.suite.js';
import { decoded, encodeAs } from './store-fixtures.suite.js';
import {
  FencedError,
  KeyExistsError,
  RevisionConflictError,
  type Store,
  type StoreNotice,
  UniqueClaimError,
} from './types.js';

const connectionString = PG_TEST_URL;
const schema = freshSchema('svc_group');
const stores: Store[] = [];
const open = async (replicaId: string) => {
  const store = await openPostgresStore({ connectionString, schema, replicaId });
  stores.push(store);
  return store;
};
const email = (value: string) => [{ index: 'spec.email', value }];
const reason = (outcome: PromiseSettledResult<unknown>) => (outcome as PromiseRejectedResult).reason as Error;

afterAll(() => closeAndDrop(schema, stores));

describe('PostgreSQL group commit', () => {
  it('checks each write of a group on its own, in request order, and gives revisions only to those that pass', async () => {
    const store = await open('grouping');
    const kept = await store.create('people', 'kept', encodeAs('kept'), email('kept@x.org'));
    const start = kept.revision;
    // All requested in one turn: one group.
    const outcomes = await Promise.allSettled([
      store.create('people', 'a', encodeAs('a'), email('a@x.org')),
      store.create('people', 'a', encodeAs('a again')),
      store.update('people', 'kept', start + 5, encodeAs('stale')),
      store.create('people', 'b', encodeAs('b'), email('a@x.org')),
      store.create('people', 'c', () => {
        throw new Error('encoder failed');
      }),
      store.delete('people', 'kept', start),
      store.create('people', 'd', encodeAs('d'), email('kept@x.org')),
      store.update('people', 'a', start + 1, encodeAs('a2'), email('a2@x.org')),
      store.create('people', 'e', encodeAs('e'), email('a@x.org')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(reason(outcomes[1]!)).toBeInstanceOf(KeyExistsError);
    expect(reason(outcomes[2]!)).toBeInstanceOf(RevisionConflictError);
    expect(reason(outcomes[3]!)).toBeInstanceOf(UniqueClaimError);
    expect(reason(outcomes[4]!).message).toBe('encoder failed');
    const revisions = outcomes.flatMap((o) =>
      o.status === 'fulfilled' ? [(o.value as { revision: number }).revision] : [],
    );
    expect(revisions).toEqual([start + 1, start + 2, start + 3, start + 4, start + 5]);
    const changes = await store.changesSince(start);
    expect(changes.map((c) => [c.revision, c.type, c.name])).toEqual([
      [start + 1, 'ADDED', 'a'],
      [start + 2, 'DELETED', 'kept'],
      [start + 3, 'ADDED', 'd'],
      [start + 4, 'MODIFIED', 'a'],
      [start + 5, 'ADDED', 'e'],
    ]);
    expect(decoded({ value: changes[3]!.prevValue! })).toEqual({ text: 'a', revision: start + 1 });
    expect(decoded((await store.get('people', 'a'))!)).toEqual({ text: 'a2', revision: start + 4 });
    expect(await store.get('people', 'kept')).toBeUndefined();
    // What the group left in the database's claims, seen by another server: a2 (a's), kept (d's), a (e's) are held.
    const other = await open('other');
    for (const value of ['a2@x.org', 'kept@x.org', 'a@x.org']) {
      await expect(other.create('people', `z-${value}`, encodeAs('z'), email(value))).rejects.toThrow(UniqueClaimError);
    }
    await other.create('people', 'free', encodeAs('free'), email('b@x.org'));
  });

  it('stores names and values with quotes, backslashes and any bytes as they are', async () => {
    const store = await open('literals');
    const name = "o'brien\\x'); DROP TABLE objects; --";
    const value = Buffer.from([0, 39, 92, 255, 10]);
    const [written] = await Promise.all([
      store.create("it's", name, () => value, email("a'b\\c")),
      store.create("it's", 'other', encodeAs('other')),
    ]);
    expect(await store.get("it's", name)).toEqual({ resource: "it's", name, revision: written.revision, value });
    await expect(store.create("it's", 'third', encodeAs('x'), email("a'b\\c"))).rejects.toThrow(UniqueClaimError);
  });

  it("stores names and values an array literal or bytea's text gives meaning to as they are, in one group", async () => {
    const store = await open('array-literals');
    const names = ['NULL', 'null', '{a,b}', 'say "hi"', 'back\\slash\\', ' spaced ', '', 'ünï', "'{}'", 'last'];
    const values = [
      Buffer.from('{"a":"\\\\x41 \\"quoted\\" \'single\'"}'),
      Buffer.from('\\x4142'),
      Buffer.from('\\\\'),
      Buffer.from('{"emoji":"😀","cjk":"角色"}'),
      Buffer.from([0xff, 0x41, 0x5c]),
      Buffer.from([0x41, 0x00, 0x5c, 0x22]),
      Buffer.from('\\123 octal-looking'),
      Buffer.from('NULL'),
      Buffer.from(''),
      Buffer.from('{}'),
    ];
    const records = await Promise.all(
      names.map((name, i) => store.create('odd', name, () => values[i]!, email(`${name}@x`))),
    );
    expect(new Set(records.map((r) => r.revision)).size).toBe(names.length);
    for (const [i, name] of names.entries()) {
      expect(await store.get('odd', name)).toEqual({
        resource: 'odd',
        name,
        revision: records[i]!.revision,
        value: values[i],
      });
    }
    // An update's history keeps the value it replaced, read by the statement itself.
    const updated = await store.update('odd', 'say "hi"', records[3]!.revision, () => values[0]!);
    const [change] = await store.changesSince(updated.revision - 1);
    expect([change!.value, change!.prevValue]).toEqual([values[0], values[3]]);
    await expect(store.create('odd', 'late', encodeAs('late'), email('{a,b}@x'))).rejects.toThrow(UniqueClaimError);
  });

  it('commits the writes requested together in one transaction: other servers hear one notice for them', async () => {
    const [writer, listener] = await Promise.all([open('writer'), open('listener')]);
    const heard: StoreNotice[] = [];
    listener.listen((notice) => heard.push(notice));
    await eventually(() => heard.some((n) => n.type === 'reset'), 'the listening connection');
    const records = await Promise.all(
      Array.from({ length: 50 }, (_, i) => writer.create('widgets', `w${i}`, encodeAs(`w${i}`))),
    );
    const last = records[records.length - 1]!.revision;
    expect(records.map((r) => r.revision)).toEqual(Array.from({ length: 50 }, (_, i) => last - 49 + i));
    await eventually(() => heard.length >= 2, 'a notice');
    await new Promise((r) => setTimeout(r, 100));
    expect(heard.slice(1)).toEqual([{ type: 'revision', revision: last }]);
  });
});

describe('PostgreSQL fencing', () => {
  it("refuses the writes of a leader whose lease has moved on, and no one else's", async () => {
    const [first, second] = await Promise.all([open(`first-${schema}`), open(`second-${schema}`)]);
    const leases = [first.lease('fenced'), second.lease('fenced')];
    await eventually(() => leases.some((l) => l.held), 'a first holder');
    const old = leases.findIndex((l) => l.held);
    const [was, next] = old === 0 ? [first, second] : [second, first];
    const oldEpoch = leases[old]!.epoch;
    await runFenced(leases[old]!, () => was.create('fenced', 'before', encodeAs('leader')));
    // The old leader, cut off, still believes it holds epoch `oldEpoch`.
    const cutOff = { name: 'fenced', epoch: oldEpoch };
    const admin = new pg.Client({ connectionString });
    await admin.connect();
    const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
      `svc lease fenced ${old === 0 ? `first-${schema}` : `second-${schema}`}`.slice(0, 63),
    ]);
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await admin.end();
    await eventually(() => leases[1 - old]!.held, 'the new holder');
    expect(leases[1 - old]!.epoch).toBe(oldEpoch + 1);

    const before = (await was.get('fenced', 'before'))!;
    const outcomes = await Promise.allSettled([
      runFenced(cutOff, () => was.create('fenced', 'late', encodeAs('late'))),
      runFenced(cutOff, () => was.update('fenced', 'before', before.revision, encodeAs('late'))),
      was.create('fenced', 'neighbour', encodeAs('not fenced')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    const refused = reason(outcomes[0]!) as FencedError;
    expect(refused).toBeInstanceOf(FencedError);
    expect([refused.lease, refused.epoch, refused.current]).toEqual(['fenced', oldEpoch, oldEpoch + 1]);
    expect(reason(outcomes[1]!)).toBeInstanceOf(FencedError);
    await expect(runFenced(cutOff, () => was.compact(0))).rejects.toThrow(FencedError);
    expect(await was.get('fenced', 'late')).toBeUndefined();
    // The new leader writes.
    await runFenced(leases[1 - old]!, () => next.update('fenced', 'before', before.revision, encodeAs('new')));
    expect(decoded((await next.get('fenced', 'before'))!).text).toBe('new');
    expect(await runFenced(leases[1 - old]!, () => next.compact(1_000_000))).toBe(0);
  });
});
