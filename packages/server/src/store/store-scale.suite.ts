/** Conformance, part three: many objects (scan, count) and many writers at once. */
import { describe, expect, it } from 'vitest';
import { decoded, encodeAs, GADGETS, type SuiteContext, WIDGETS } from './store-fixtures.suite.js';
import { KeyExistsError, RevisionConflictError, type Store, type StoredRecord } from './types.js';

const WRITERS = 12;

async function collect(batches: AsyncIterable<StoredRecord[]>): Promise<StoredRecord[][]> {
  const collected: StoredRecord[][] = [];
  for await (const batch of batches) collected.push(batch);
  return collected;
}

/** Splits settled writes into the winners and the reasons of the losers. */
function outcomes<T>(settled: PromiseSettledResult<T>[]) {
  return {
    won: settled.flatMap((each) => (each.status === 'fulfilled' ? [each.value] : [])),
    lost: settled.flatMap((each) => (each.status === 'rejected' ? [each.reason as unknown] : [])),
  };
}

/** Two stores on the same storage, so writers also race across connections (or pools). */
async function twoStores(context: SuiteContext): Promise<[Store, Store]> {
  return [context.store(), await context.openStore()];
}

export function describeStoreScale(context: SuiteContext): void {
  const store = () => context.store();

  describe('scan and count', () => {
    it('scan streams every record of the resource once, in batches', async () => {
      // Created out of name order: the interface promises no order, only each record exactly once.
      const names = Array.from({ length: 25 }, (_, i) => `w${String((i * 7) % 25).padStart(2, '0')}`);
      for (const name of names) await store().create(WIDGETS, name, encodeAs(name));
      await store().create(GADGETS, 'other', encodeAs('other'));
      // An update keeps the record in the scan, with its new value.
      const w03 = (await store().get(WIDGETS, 'w03'))!;
      await store().update(WIDGETS, 'w03', w03.revision, encodeAs('w03 again'));

      const batches = await collect(store().scan(WIDGETS, 10));
      expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
      const records = batches.flat();
      expect(records.map((record) => record.name).sort()).toEqual([...names].sort());
      expect(records.every((record) => record.resource === WIDGETS)).toBe(true);
      const w03again = records.find((record) => record.name === 'w03')!;
      expect(decoded(w03again).text).toBe('w03 again');
      expect(w03again).toEqual(await store().get(WIDGETS, 'w03'));

      expect((await collect(store().scan(WIDGETS))).flat()).toHaveLength(25);
      expect((await collect(store().scan(WIDGETS, 25))).map((batch) => batch.length)).toEqual([25]);
    });

    it('scan of an empty resource yields no batch', async () => {
      await store().create(GADGETS, 'other', encodeAs('other'));
      expect(await collect(store().scan(WIDGETS, 10))).toEqual([]);
    });

    it('count follows creates and deletes per resource', async () => {
      const created = [];
      for (const name of ['a', 'b', 'c']) created.push(await store().create(WIDGETS, name, encodeAs(name)));
      await store().create(GADGETS, 'a', encodeAs('a'));
      expect(await store().count(WIDGETS)).toBe(3);
      await store().delete(WIDGETS, 'b', created[1]!.revision);
      expect(await store().count(WIDGETS)).toBe(2);
      expect(await store().count(GADGETS)).toBe(1);
      expect(await store().count('nothing')).toBe(0);
    });
  });

  describe('concurrent writers', () => {
    it('exactly one of concurrent creates of the same name wins', async () => {
      const stores = await twoStores(context);
      const settled = await Promise.allSettled(
        Array.from({ length: WRITERS }, (_, i) => stores[i % 2]!.create(WIDGETS, 'race', encodeAs(`writer ${i}`))),
      );
      const { won, lost } = outcomes(settled);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(WRITERS - 1);
      for (const reason of lost) expect(reason).toBeInstanceOf(KeyExistsError);
      expect(await store().get(WIDGETS, 'race')).toEqual(won[0]);
      expect((await store().changesSince(0)).map((change) => change.revision)).toEqual([won[0]!.revision]);
    });

    it('exactly one of concurrent updates with the same expected revision wins', async () => {
      const stores = await twoStores(context);
      const created = await store().create(WIDGETS, 'race', encodeAs('start'));
      const settled = await Promise.allSettled(
        Array.from({ length: WRITERS }, (_, i) =>
          stores[i % 2]!.update(WIDGETS, 'race', created.revision, encodeAs(`writer ${i}`)),
        ),
      );
      const { won, lost } = outcomes(settled);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(WRITERS - 1);
      for (const reason of lost) expect(reason).toBeInstanceOf(RevisionConflictError);
      expect(await store().get(WIDGETS, 'race')).toEqual(won[0]);
    });

    it('concurrent creates of different names get distinct revisions, listed in order', async () => {
      const stores = await twoStores(context);
      const created = await Promise.all(
        Array.from({ length: WRITERS }, (_, i) => stores[i % 2]!.create(WIDGETS, `n${i}`, encodeAs(`n${i}`))),
      );
      const revisions = created.map((record) => record.revision).sort((x, y) => x - y);
      expect(new Set(revisions).size).toBe(WRITERS);
      const changes = await store().changesSince(0);
      expect(changes.map((change) => change.revision)).toEqual(revisions);
      for (const change of changes) expect(decoded(change).revision).toBe(change.revision);
      expect(await store().currentRevision()).toBe(revisions[WRITERS - 1]);
    });
  });
}
