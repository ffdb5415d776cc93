/** Conformance, part two: the change history (changesSince, compact) and what survives a close and reopen. */
import { describe, expect, it } from 'vitest';
import { decoded, encodeAs, GADGETS, type SuiteContext, WIDGETS } from './store-fixtures.suite.js';
import { CompactedError, type Store } from './types.js';

/** Five writes on two resources; returns their revisions in order. */
async function writeFive(store: Store): Promise<number[]> {
  const a = await store.create(WIDGETS, 'a', encodeAs('a1'));
  const b = await store.create(GADGETS, 'b', encodeAs('b1'));
  const a2 = await store.update(WIDGETS, 'a', a.revision, encodeAs('a2'));
  const gone = await store.delete(WIDGETS, 'a', a2.revision);
  const c = await store.create(WIDGETS, 'c', encodeAs('c1'));
  return [a.revision, b.revision, a2.revision, gone.revision, c.revision];
}

export function describeStoreHistory({ store, openStore }: SuiteContext): void {
  describe('history', () => {
    it('changesSince lists every write oldest first with its type, value and previous revision', async () => {
      const [a, b, a2, gone, c] = await writeFive(store());
      const changes = await store().changesSince(0);
      expect(
        changes.map((change) => [change.revision, change.type, change.resource, change.name, change.prevRevision]),
      ).toEqual([
        [a, 'ADDED', WIDGETS, 'a', 0],
        [b, 'ADDED', GADGETS, 'b', 0],
        [a2, 'MODIFIED', WIDGETS, 'a', a],
        [gone, 'DELETED', WIDGETS, 'a', a2],
        [c, 'ADDED', WIDGETS, 'c', 0],
      ]);
      // A deletion carries the last value the object had.
      expect(changes.map((change) => decoded(change).text)).toEqual(['a1', 'b1', 'a2', 'a2', 'c1']);
      expect(changes.every((change) => Buffer.isBuffer(change.value))).toBe(true);
    });

    it('a MODIFIED change carries the value it replaced; ADDED and DELETED carry none', async () => {
      await writeFive(store());
      const changes = await store().changesSince(0);
      const prev = changes.map((change) => (change.prevValue ? decoded({ value: change.prevValue }) : null));
      expect(prev).toEqual([null, null, { text: 'a1', revision: changes[0]!.revision }, null, null]);
    });

    it('writes requested together commit together, and one that fails does not disturb the others', async () => {
      const first = await store().create(WIDGETS, 'taken', encodeAs('t'));
      const results = await Promise.allSettled([
        store().create(WIDGETS, 'n1', encodeAs('n1')),
        store().create(WIDGETS, 'taken', encodeAs('dup')),
        store().update(WIDGETS, 'taken', first.revision + 99, encodeAs('stale')),
        store().create(WIDGETS, 'n2', encodeAs('n2')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      const [n1, , , n2] = results as PromiseFulfilledResult<{ revision: number }>[];
      // Each its own revision; which comes first is the store's choice (PostgreSQL's connections race for the lock).
      expect(n2!.value.revision).not.toBe(n1!.value.revision);
      expect((await store().getMany(WIDGETS, ['taken', 'n1', 'n2'])).map((r) => decoded(r).text)).toEqual([
        't',
        'n1',
        'n2',
      ]);
      expect((await store().changesSince(first.revision)).map((c) => c.name).sort()).toEqual(['n1', 'n2']);
    });

    it('changesSince starts after the given revision and honours the limit', async () => {
      const revisions = await writeFive(store());
      expect((await store().changesSince(revisions[1]!)).map((change) => change.revision)).toEqual(revisions.slice(2));
      expect((await store().changesSince(0, 2)).map((change) => change.revision)).toEqual(revisions.slice(0, 2));
      expect((await store().changesSince(revisions[2]!, 1)).map((change) => change.revision)).toEqual([revisions[3]]);
      expect(await store().changesSince(await store().currentRevision())).toEqual([]);
      expect(await store().changesSince(revisions[4]! + 100)).toEqual([]);
    });

    it('compact(keep) keeps the most recent events; an older resume fails with CompactedError', async () => {
      const revisions = await writeFive(store());
      expect(await store().compact(2)).toBe(3);
      const oldest = await store().oldestResumableRevision();
      expect(oldest).toBe(revisions[2]);
      expect((await store().changesSince(oldest)).map((change) => change.revision)).toEqual(revisions.slice(3));

      const tooOld = store().changesSince(oldest - 1);
      await expect(tooOld).rejects.toBeInstanceOf(CompactedError);
      await expect(tooOld).rejects.toMatchObject({ requested: oldest - 1, oldest });
      await expect(store().changesSince(0)).rejects.toBeInstanceOf(CompactedError);
      // Objects are untouched by compaction, and new writes extend the history.
      expect(decoded((await store().get(WIDGETS, 'c'))!).text).toBe('c1');
      const next = await store().create(WIDGETS, 'd', encodeAs('d1'));
      expect((await store().changesSince(oldest)).map((change) => change.revision)).toEqual([
        ...revisions.slice(3),
        next.revision,
      ]);
    });

    it('compact drops nothing when the history is short, and everything with keep 0', async () => {
      const revisions = await writeFive(store());
      expect(await store().compact(5)).toBe(0);
      expect(await store().compact(50)).toBe(0);
      expect(await store().oldestResumableRevision()).toBe(0);
      expect(await store().compact(0)).toBe(5);
      expect(await store().compact(0)).toBe(0);
      expect(await store().oldestResumableRevision()).toBe(revisions[4]);
      expect(await store().changesSince(revisions[4]!)).toEqual([]);
      await expect(store().changesSince(revisions[3]!)).rejects.toBeInstanceOf(CompactedError);
      expect(await store().currentRevision()).toBe(revisions[4]);
    });

    it('skipTo continues an empty store after a revision, as if the history up to it were compacted', async () => {
      await store().skipTo(500);
      expect(await store().currentRevision()).toBe(500);
      expect(await store().oldestResumableRevision()).toBe(500);
      await expect(store().changesSince(499)).rejects.toMatchObject({ requested: 499, oldest: 500 });
      const created = await store().create(WIDGETS, 'a', encodeAs('a1'));
      expect(created.revision).toBe(501);
      expect(decoded(created).revision).toBe(501);
      expect((await store().changesSince(500)).map((change) => change.revision)).toEqual([501]);
      // Never backwards.
      await store().skipTo(10);
      expect(await store().currentRevision()).toBe(501);
      expect(await store().oldestResumableRevision()).toBe(500);
      await expect(store().skipTo(-1)).rejects.toThrow('revision must be a non-negative integer, got -1');
    });

    it('restore fills an empty store after a revision: objects at the revisions that follow, and secrets', async () => {
      await store().restore(
        500,
        [
          { resource: WIDGETS, name: 'a', encode: encodeAs('a') },
          { resource: GADGETS, name: 'b', encode: encodeAs('b') },
        ],
        [{ kind: 'example.com/keys', name: 'k', value: Buffer.from('secret') }],
      );
      expect(await store().currentRevision()).toBe(502);
      expect(await store().oldestResumableRevision()).toBe(500);
      expect(decoded((await store().get(WIDGETS, 'a'))!)).toEqual({ text: 'a', revision: 501 });
      expect((await store().get(GADGETS, 'b'))?.revision).toBe(502);
      expect((await store().changesSince(500)).map((c) => [c.revision, c.type, c.name])).toEqual([
        [501, 'ADDED', 'a'],
        [502, 'ADDED', 'b'],
      ]);
      expect((await store().secrets.get('example.com/keys', 'k'))?.toString()).toBe('secret');
      expect((await store().create(WIDGETS, 'c', encodeAs('c'))).revision).toBe(503);
    });

    it('restore writes nothing when any part fails: a name given twice, an encoder that throws, a store not empty', async () => {
      const many = Array.from({ length: 1200 }, (_, i) => ({
        resource: WIDGETS,
        name: `w${i}`,
        encode: encodeAs(`w${i}`),
      }));
      const secret = [{ kind: 'example.com/keys', name: 'k', value: Buffer.from('secret') }];
      const nothing = async () => ({
        revision: await store().currentRevision(),
        resources: await store().resources(),
        kinds: await store().secrets.kinds(),
      });
      const empty = await nothing();
      await expect(
        store().restore(10, [...many, { resource: WIDGETS, name: 'w3', encode: encodeAs('again') }], secret),
      ).rejects.toMatchObject({ name: 'KeyExistsError', resource: WIDGETS, key: 'w3' });
      expect(await nothing()).toEqual(empty);
      const failing = () => {
        throw new Error('encoder failed');
      };
      await expect(
        store().restore(10, [...many, { resource: GADGETS, name: 'x', encode: failing }], secret),
      ).rejects.toThrow('encoder failed');
      expect(await nothing()).toEqual(empty);
      await expect(store().restore(10, many, [...secret, ...secret])).rejects.toThrow('given twice');
      expect(await nothing()).toEqual(empty);
      await store().secrets.put('example.com/keys', 'held', Buffer.from('x'));
      await expect(store().restore(10, many, [])).rejects.toThrow('the store is not empty');
      expect(await store().resources()).toEqual([]);
    });
  });

  describe('durability', () => {
    it('keeps objects, revisions and history across close and reopen', async () => {
      const revisions = await writeFive(store());
      await store().compact(3);
      const before = {
        revision: await store().currentRevision(),
        oldest: await store().oldestResumableRevision(),
        changes: await store().changesSince(revisions[1]!),
        objects: await store().getMany(WIDGETS, ['a', 'c']),
        count: await store().count(GADGETS),
      };
      await store().close();

      const reopened = await openStore();
      expect({
        revision: await reopened.currentRevision(),
        oldest: await reopened.oldestResumableRevision(),
        changes: await reopened.changesSince(revisions[1]!),
        objects: await reopened.getMany(WIDGETS, ['a', 'c']),
        count: await reopened.count(GADGETS),
      }).toEqual(before);
      const next = await reopened.create(WIDGETS, 'after', encodeAs('after'));
      expect(next.revision).toBeGreaterThan(before.revision);
    });

    it('a store compacted to nothing keeps its revision across reopen', async () => {
      const revisions = await writeFive(store());
      await store().compact(0);
      await store().close();
      const reopened = await openStore();
      expect(await reopened.currentRevision()).toBe(revisions[4]);
      expect(await reopened.oldestResumableRevision()).toBe(revisions[4]);
      const next = await reopened.create(WIDGETS, 'after', encodeAs('after'));
      expect(next.revision).toBeGreaterThan(revisions[4]!);
      expect((await reopened.changesSince(revisions[4]!)).map((change) => change.revision)).toEqual([next.revision]);
    });
  });
}
