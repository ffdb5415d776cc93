/**
 * The conformance suite every `Store` implementation runs (see sqlite.test.ts, postgres.test.ts).
 *
 * `open` opens a store on the suite's storage: every call until the next `cleanup` must reach the same data (the
 * persistence and cross-instance tests open it twice). `cleanup` runs after each test, once the test's stores are
 * closed, and must leave the storage empty for the next one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decoded, encodeAs, GADGETS, type SuiteContext, snapshot, WIDGETS } from './store-fixtures.suite.js';
import { describeStoreHistory } from './store-history.suite.js';
import { describeStoreScale } from './store-scale.suite.js';
import { describeStoreSecrets } from './store-secrets.suite.js';
import { type Encoder, KeyExistsError, RevisionConflictError, type Store } from './types.js';

export function describeStoreConformance(
  label: string,
  open: () => Promise<Store>,
  cleanup?: () => Promise<void>,
): void {
  describe(`Store conformance: ${label}`, () => {
    const opened: Store[] = [];
    let store: Store;

    async function openStore(): Promise<Store> {
      const opening = await open();
      opened.push(opening);
      return opening;
    }

    beforeEach(async () => {
      store = await openStore();
    });

    afterEach(async () => {
      // close() twice must be harmless: the persistence test closes its first store itself.
      await Promise.all(opened.splice(0).map((each) => each.close()));
      await cleanup?.();
    });

    describe('create and read', () => {
      it('starts empty', async () => {
        expect(await store.currentRevision()).toBe(0);
        expect(await store.oldestResumableRevision()).toBe(0);
        expect(await store.get(WIDGETS, 'a')).toBeUndefined();
        expect(await store.getMany(WIDGETS, ['a', 'b'])).toEqual([]);
        expect(await store.count(WIDGETS)).toBe(0);
        expect(await store.changesSince(0)).toEqual([]);
      });

      it('creates and gets a record carrying its revision', async () => {
        const created = await store.create(WIDGETS, 'a', encodeAs('one'));
        expect(created).toMatchObject({ resource: WIDGETS, name: 'a', revision: 1 });
        expect(decoded(created)).toEqual({ text: 'one', revision: created.revision });
        const read = await store.get(WIDGETS, 'a');
        expect(read).toEqual(created);
        expect(Buffer.isBuffer(read!.value)).toBe(true);
        expect(await store.currentRevision()).toBe(created.revision);
      });

      it('getMany returns the existing records in the order of the names', async () => {
        for (const name of ['a', 'b', 'c']) await store.create(WIDGETS, name, encodeAs(name));
        await store.create(GADGETS, 'a', encodeAs('gadget a'));
        const found = await store.getMany(WIDGETS, ['c', 'missing', 'a']);
        expect(found.map((record) => [record.name, decoded(record).text])).toEqual([
          ['c', 'c'],
          ['a', 'a'],
        ]);
        expect(await store.getMany(WIDGETS, [])).toEqual([]);
      });

      it('refuses a duplicate name with KeyExistsError and changes nothing', async () => {
        await store.create(WIDGETS, 'a', encodeAs('first'));
        const before = await snapshot(store, WIDGETS, 'a');
        const duplicate = store.create(WIDGETS, 'a', encodeAs('second'));
        await expect(duplicate).rejects.toBeInstanceOf(KeyExistsError);
        await expect(duplicate).rejects.toMatchObject({ resource: WIDGETS, key: 'a' });
        expect(await snapshot(store, WIDGETS, 'a')).toEqual(before);
      });

      it('keeps names apart per resource', async () => {
        await store.create(WIDGETS, 'a', encodeAs('widget'));
        await store.create(GADGETS, 'a', encodeAs('gadget'));
        expect(decoded((await store.get(WIDGETS, 'a'))!).text).toBe('widget');
        expect(decoded((await store.get(GADGETS, 'a'))!).text).toBe('gadget');
      });

      it('lists the resources that hold objects, sorted, and forgets an emptied one', async () => {
        expect(await store.resources()).toEqual([]);
        await store.create(WIDGETS, 'a', encodeAs('widget'));
        const gadget = await store.create(GADGETS, 'a', encodeAs('gadget'));
        await store.create(WIDGETS, 'b', encodeAs('widget'));
        expect(await store.resources()).toEqual(['example.com/widgets', 'gadgets']);
        await store.delete(GADGETS, 'a', gadget.revision);
        expect(await store.resources()).toEqual(['example.com/widgets']);
      });
    });

    describe('update and delete', () => {
      it('updates with the expected revision', async () => {
        const created = await store.create(WIDGETS, 'a', encodeAs('one'));
        const updated = await store.update(WIDGETS, 'a', created.revision, encodeAs('two'));
        expect(updated.revision).toBeGreaterThan(created.revision);
        expect(decoded(updated)).toEqual({ text: 'two', revision: updated.revision });
        expect(await store.get(WIDGETS, 'a')).toEqual(updated);
      });

      it('refuses a stale expected revision with RevisionConflictError and changes nothing', async () => {
        const created = await store.create(WIDGETS, 'a', encodeAs('one'));
        const updated = await store.update(WIDGETS, 'a', created.revision, encodeAs('two'));
        const before = await snapshot(store, WIDGETS, 'a');
        for (const write of [
          store.update(WIDGETS, 'a', created.revision, encodeAs('three')),
          store.delete(WIDGETS, 'a', created.revision),
        ]) {
          await expect(write).rejects.toBeInstanceOf(RevisionConflictError);
          await expect(write).rejects.toMatchObject({ expected: created.revision, actual: updated.revision });
        }
        expect(await snapshot(store, WIDGETS, 'a')).toEqual(before);
      });

      it('refuses to update or delete a missing object', async () => {
        await store.create(WIDGETS, 'a', encodeAs('one'));
        const before = await store.currentRevision();
        for (const write of [store.update(WIDGETS, 'b', 1, encodeAs('x')), store.delete(WIDGETS, 'b', 1)]) {
          await expect(write).rejects.toBeInstanceOf(RevisionConflictError);
          await expect(write).rejects.toMatchObject({ key: 'b', expected: 1, actual: undefined });
        }
        expect(await store.currentRevision()).toBe(before);
      });

      it('delete returns the last value with the revision of the deletion', async () => {
        const created = await store.create(WIDGETS, 'a', encodeAs('one'));
        const updated = await store.update(WIDGETS, 'a', created.revision, encodeAs('two'));
        const deleted = await store.delete(WIDGETS, 'a', updated.revision);
        expect(deleted).toMatchObject({ resource: WIDGETS, name: 'a' });
        expect(deleted.revision).toBeGreaterThan(updated.revision);
        expect(deleted.value).toEqual(updated.value);
        expect(await store.currentRevision()).toBe(deleted.revision);
        expect(await store.get(WIDGETS, 'a')).toBeUndefined();
        expect(await store.count(WIDGETS)).toBe(0);
        // The name is free again.
        const recreated = await store.create(WIDGETS, 'a', encodeAs('three'));
        expect(recreated.revision).toBeGreaterThan(deleted.revision);
      });
    });

    describe('revisions', () => {
      it('increase strictly across resources', async () => {
        const revisions: number[] = [];
        for (let i = 0; i < 6; i++) {
          const resource = i % 2 === 0 ? WIDGETS : GADGETS;
          revisions.push((await store.create(resource, `n${i}`, encodeAs(String(i)))).revision);
        }
        const updated = await store.update(GADGETS, 'n1', revisions[1]!, encodeAs('again'));
        revisions.push(updated.revision, (await store.delete(WIDGETS, 'n0', revisions[0]!)).revision);
        for (let i = 1; i < revisions.length; i++) expect(revisions[i]).toBeGreaterThan(revisions[i - 1]!);
        expect(await store.currentRevision()).toBe(revisions[revisions.length - 1]);
      });

      it('the encoder receives the revision the record ends up with', async () => {
        const seen: number[] = [];
        const spy =
          (text: string): Encoder =>
          (revision) => {
            seen.push(revision);
            return encodeAs(text)(revision);
          };
        const created = await store.create(WIDGETS, 'a', spy('one'));
        const updated = await store.update(WIDGETS, 'a', created.revision, spy('two'));
        expect(seen).toEqual([created.revision, updated.revision]);
        expect((await store.get(WIDGETS, 'a'))!.revision).toBe(updated.revision);
        const changes = await store.changesSince(0);
        expect(changes.map((change) => [change.revision, decoded(change).revision])).toEqual([
          [created.revision, created.revision],
          [updated.revision, updated.revision],
        ]);
      });

      it('a write whose encoder throws leaves no trace and no gap in the order', async () => {
        const boom: Encoder = () => {
          throw new Error('encoder failed');
        };
        const kept = await store.create(WIDGETS, 'kept', encodeAs('kept'));
        const before = await snapshot(store, WIDGETS, 'kept');
        await expect(store.create(WIDGETS, 'lost', boom)).rejects.toThrow('encoder failed');
        await expect(store.update(WIDGETS, 'kept', kept.revision, boom)).rejects.toThrow('encoder failed');
        expect(await store.get(WIDGETS, 'lost')).toBeUndefined();
        expect(await store.count(WIDGETS)).toBe(1);
        expect(await snapshot(store, WIDGETS, 'kept')).toEqual(before);

        const next = await store.create(WIDGETS, 'next', encodeAs('next'));
        expect(next.revision).toBeGreaterThan(kept.revision);
        expect(await store.currentRevision()).toBe(next.revision);
        expect((await store.changesSince(kept.revision)).map((change) => [change.name, change.revision])).toEqual([
          ['next', next.revision],
        ]);
      });
    });

    const context: SuiteContext = { store: () => store, openStore };
    describeStoreHistory(context);
    describeStoreScale(context);
    describeStoreSecrets(context);
  });
}
