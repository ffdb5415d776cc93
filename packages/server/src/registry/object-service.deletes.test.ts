import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LabelRequirement } from '../index/selectors.js';
import {
  COURIER_FINALIZER,
  type Fixture,
  openFixture,
  parcel,
  reasonOf,
  START,
  widget,
} from './object-service-fixtures.suite.js';

let f: Fixture;
beforeEach(async () => {
  f = await openFixture();
});
afterEach(() => f.close());

const RESOURCE = 'example.com/widgets';
const FINALIZER = 'example.com/cleanup';
const labelled = (value: string): LabelRequirement[] => [{ key: 'team', operator: 'in', values: [value] }];

describe('delete', () => {
  it('removes an object without finalizers at once', async () => {
    await f.service.create(f.widgets, widget('w1'));
    f.advance(1000);
    const { object, removed } = await f.service.delete(f.widgets, 'w1');
    expect(removed).toBe(true);
    // The answer is the object as it was deleted: its deletion time, and the revision of the deletion.
    expect(object.metadata).toMatchObject({
      deletionTimestamp: new Date(START.getTime() + 1000).toISOString(),
      resourceVersion: '2',
    });
    expect(await reasonOf(() => f.service.get(f.widgets, 'w1'))).toBe('NotFound');
    expect(await f.store.get(RESOURCE, 'w1')).toBeUndefined();
    expect(f.widgets.index.has('w1')).toBe(false);
  });

  it('only marks an object with finalizers: it stays readable until they are gone', async () => {
    await f.service.create(f.widgets, widget('w1', {}, { finalizers: [FINALIZER] }));
    const { object, removed } = await f.service.delete(f.widgets, 'w1');
    expect(removed).toBe(false);
    expect(object.metadata).toMatchObject({
      deletionTimestamp: START.toISOString(),
      version: 1,
      finalizers: [FINALIZER],
    });
    expect(await f.service.get(f.widgets, 'w1')).toEqual(object);
  });

  it('deleting again changes nothing', async () => {
    await f.service.create(f.widgets, widget('w1', {}, { finalizers: [FINALIZER] }));
    const first = await f.service.delete(f.widgets, 'w1');
    f.advance(5000);
    const second = await f.service.delete(f.widgets, 'w1');
    expect(second.object).toEqual(first.object);
    expect(await f.store.currentRevision()).toBe(2);
  });

  it('keeps the deletion when an update leaves it out, and removes the object with its last finalizer', async () => {
    await f.service.create(f.widgets, widget('w1', { size: 1 }, { finalizers: [FINALIZER, 'example.com/other'] }));
    const marked = (await f.service.delete(f.widgets, 'w1')).object;
    const cleared = {
      ...marked,
      metadata: { ...marked.metadata, deletionTimestamp: null, finalizers: ['example.com/other'] },
    };
    const kept = await f.service.update(f.widgets, 'w1', cleared);
    expect(kept).toMatchObject({ removed: false, object: { metadata: { deletionTimestamp: START.toISOString() } } });
    const last = await f.service.patch(f.widgets, 'w1', (current) => ({
      ...current,
      metadata: { ...current.metadata, finalizers: [] },
    }));
    expect(last.removed).toBe(true);
    expect(await f.store.get(RESOURCE, 'w1')).toBeUndefined();
  });

  it('answers NotFound for a missing object', async () => {
    expect(await reasonOf(() => f.service.delete(f.widgets, 'nope'))).toBe('NotFound');
  });
});

describe("a model's own finalizers", () => {
  it('are added at create, after those the body names, each once', async () => {
    const plain = await f.service.create(f.parcels, parcel('p1'));
    expect(plain.object.metadata.finalizers).toEqual([COURIER_FINALIZER]);
    const named = await f.service.create(f.parcels, parcel('p2', { finalizers: [FINALIZER, COURIER_FINALIZER] }));
    expect(named.object.metadata.finalizers).toEqual([FINALIZER, COURIER_FINALIZER]);
    const other = await f.service.create(f.parcels, parcel('p3', { finalizers: [FINALIZER] }));
    expect(other.object.metadata.finalizers).toEqual([FINALIZER, COURIER_FINALIZER]);
    expect((await f.service.get(f.parcels, 'p1')).metadata.finalizers).toEqual([COURIER_FINALIZER]);
    const dryRun = await f.service.create(f.parcels, parcel('p4'), { dryRun: true });
    expect(dryRun.object.metadata.finalizers).toEqual([COURIER_FINALIZER]);
  });

  it('hold an object deleted right after its create until their owner lets it go', async () => {
    await f.service.create(f.parcels, parcel('p1'));
    const deleting = await f.service.delete(f.parcels, 'p1');
    expect(deleting.removed).toBe(false);
    expect((await f.service.get(f.parcels, 'p1')).metadata.deletionTimestamp).toBe(START.toISOString());
    const released = await f.service.patch(f.parcels, 'p1', (current) => ({
      ...current,
      metadata: { ...current.metadata, finalizers: [] },
    }));
    expect(released.removed).toBe(true);
    expect(await reasonOf(() => f.service.get(f.parcels, 'p1'))).toBe('NotFound');
  });

  it('are not added again by an update that leaves them out', async () => {
    const created = (await f.service.create(f.parcels, parcel('p1'))).object;
    const updated = await f.service.update(f.parcels, 'p1', {
      ...created,
      metadata: { ...created.metadata, finalizers: [] },
    });
    expect(updated.object.metadata.finalizers).toEqual([]);
    expect((await f.service.get(f.parcels, 'p1')).metadata.finalizers).toEqual([]);
  });
});

describe('deleteCollection', () => {
  beforeEach(async () => {
    await f.service.create(f.widgets, widget('a1', {}, { labels: { team: 'a' } }));
    await f.service.create(f.widgets, widget('a2', {}, { labels: { team: 'a' }, finalizers: [FINALIZER] }));
    await f.service.create(f.widgets, widget('b1', {}, { labels: { team: 'b' } }));
  });

  it('deletes the selected objects and counts them, marked ones included', async () => {
    expect(await f.service.deleteCollection(f.widgets, { labels: labelled('a'), fields: [] })).toBe(2);
    expect(f.widgets.index.names()).toEqual(['a2', 'b1']);
    expect((await f.service.get(f.widgets, 'a2')).metadata.deletionTimestamp).toBe(START.toISOString());
  });

  it('counts nothing when nothing is selected', async () => {
    expect(await f.service.deleteCollection(f.widgets, { labels: labelled('c'), fields: [] })).toBe(0);
    expect(await f.store.count(RESOURCE)).toBe(3);
  });

  it('deletes everything with an empty selection', async () => {
    expect(await f.service.deleteCollection(f.widgets, { labels: [], fields: [] })).toBe(3);
    expect(f.widgets.index.names()).toEqual(['a2']);
  });
});
