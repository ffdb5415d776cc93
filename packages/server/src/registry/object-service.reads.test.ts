import { type ExtensionObject, isNotFound } from '@svc/plugin-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Fixture, openFixture, reasonOf, widget } from './object-service-fixtures.suite.js';

/** A model's own view of its objects, as a feature declares it (its spec an interface, not a record). */
interface WidgetSpec {
  size: number;
}
type Widget = ExtensionObject<WidgetSpec>;

let f: Fixture;
beforeEach(async () => {
  f = await openFixture();
  await f.service.create(f.widgets, widget('w1', { size: 3 }));
});
afterEach(() => f.close());

describe('get', () => {
  it('reads the object as stored, typed as the caller says', async () => {
    const object = await f.service.get<Widget>(f.widgets, 'w1');
    const size: number = object.spec!.size;
    expect(size).toBe(3);
    expect(object.metadata).toMatchObject({ name: 'w1', version: 0, resourceVersion: '1' });
  });

  it('answers NotFound, naming the object and its apiVersion, when there is none', async () => {
    const error = await f.service.get(f.widgets, 'w2').catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
    expect((error as Error).message).toBe('Widget "w2" not found in example.com/v1');
  });
});

describe('find', () => {
  it('reads what get reads', async () => {
    expect(await f.service.find<Widget>(f.widgets, 'w1')).toEqual(await f.service.get(f.widgets, 'w1'));
  });

  it('answers undefined, without throwing, when there is none', async () => {
    expect(await f.service.find(f.widgets, 'w2')).toBeUndefined();
  });

  it('answers undefined once the object is removed, and the object while it is only being deleted', async () => {
    await f.service.create(f.parcels, { apiVersion: 'example.com/v1', kind: 'Parcel', metadata: { name: 'p1' } });
    await f.service.delete(f.parcels, 'p1');
    expect((await f.service.find(f.parcels, 'p1'))?.metadata.deletionTimestamp).toBeTruthy();
    await f.service.delete(f.widgets, 'w1');
    expect(await f.service.find(f.widgets, 'w1')).toBeUndefined();
  });
});

describe('a delete of a missing object', () => {
  it('is a NotFound that isNotFound recognises', async () => {
    expect(await reasonOf(() => f.service.delete(f.widgets, 'w2'))).toBe('NotFound');
    expect(isNotFound(await f.service.delete(f.widgets, 'w2').catch((e: unknown) => e))).toBe(true);
  });
});
