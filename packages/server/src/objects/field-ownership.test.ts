import type { ExtensionObject } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { applyConfiguration, fieldsOf, leafPaths, ownedPaths } from './field-ownership.js';

const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-01T00:01:00Z');
const options = (manager: string, now = T0, force = false) => ({
  manager,
  now,
  force,
  apiVersion: 'people.svc.run/v1alpha1',
  ignoreStatus: true,
});
const config = (spec: Record<string, unknown>, labels?: Record<string, string>): ExtensionObject => ({
  apiVersion: 'people.svc.run/v1alpha1',
  kind: 'Person',
  metadata: { name: 'ada', ...(labels ? { labels } : {}) },
  spec,
});

describe('field sets', () => {
  it('owns leaves of maps, whole lists, labels and finalizers; never identity, server fields or status', () => {
    const object = {
      ...config({ name: 'Ada', tags: ['a'], nested: { deep: 1, empty: {} } }, { team: 'x' }),
      status: { ready: true },
    };
    object.metadata.uid = 'u';
    object.metadata.finalizers = ['f/x'];
    expect(ownedPaths(object, true)).toEqual([
      ['spec', 'name'],
      ['spec', 'tags'],
      ['spec', 'nested', 'deep'],
      ['spec', 'nested', 'empty'],
      ['metadata', 'labels', 'team'],
      ['metadata', 'finalizers'],
    ]);
    expect(
      fieldsOf([
        ['spec', 'name'],
        ['metadata', 'labels', 'team'],
      ]),
    ).toEqual({
      'f:spec': { 'f:name': {} },
      'f:metadata': { 'f:labels': { 'f:team': {} } },
    });
    // Another server's entries may mark a map with ".": it counts as the map itself.
    expect(leafPaths({ 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': {} })).toEqual([
      ['metadata', 'labels', 'app'],
      ['spec'],
    ]);
  });
});

describe('applyConfiguration', () => {
  it('creates with one Apply entry owning the applied fields', () => {
    const { object, changed } = applyConfiguration(undefined, config({ name: 'Ada', age: 36 }), options('kubectl'));
    expect(changed).toBe(true);
    expect(object).toEqual({
      apiVersion: 'people.svc.run/v1alpha1',
      kind: 'Person',
      metadata: {
        name: 'ada',
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'people.svc.run/v1alpha1',
            time: '2026-01-01T00:00:00.000Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': { 'f:name': {}, 'f:age': {} } },
          },
        ],
      },
      spec: { name: 'Ada', age: 36 },
    });
  });

  it('changes nothing when the same configuration is applied again', () => {
    const first = applyConfiguration(undefined, config({ name: 'Ada' }), options('kubectl')).object;
    const again = applyConfiguration(first, config({ name: 'Ada' }), options('kubectl', T1));
    expect(again.changed).toBe(false);
    expect(again.object.metadata.managedFields![0]!.time).toBe('2026-01-01T00:00:00.000Z');
  });

  it('removes what the manager no longer applies, keeps what others wrote, and stamps the change', () => {
    const current = applyConfiguration(
      undefined,
      config({ name: 'Ada', age: 36 }, { a: '1' }),
      options('kubectl'),
    ).object;
    current.spec!.gender = 'FEMALE'; // written by someone else, not through apply
    const next = applyConfiguration(current, config({ name: 'Ada' }), options('kubectl', T1));
    expect(next.changed).toBe(true);
    expect(next.object.spec).toEqual({ name: 'Ada', gender: 'FEMALE' });
    expect(next.object.metadata.labels).toBeUndefined();
    expect(next.object.metadata.managedFields).toEqual([
      expect.objectContaining({ time: '2026-01-01T00:01:00.000Z', fieldsV1: { 'f:spec': { 'f:name': {} } } }),
    ]);
  });

  it("refuses to change another manager's field unless forced, then takes it over", () => {
    const mine = applyConfiguration(undefined, config({ name: 'Ada', age: 36 }), options('kubectl')).object;
    // Another manager may apply the same value: shared, no conflict.
    const shared = applyConfiguration(mine, config({ age: 36 }), options('tool')).object;
    expect(shared.metadata.managedFields!.map((e) => e.manager)).toEqual(['kubectl', 'tool']);
    expect(() => applyConfiguration(shared, config({ age: 40 }), options('other'))).toThrow(
      'Apply failed with 2 conflicts: conflict with "kubectl" using people.svc.run/v1alpha1: .spec.age; ' +
        'conflict with "tool" using people.svc.run/v1alpha1: .spec.age',
    );
    expect(() => applyConfiguration(shared, config({ name: 'Bea' }), options('tool'))).toThrow(
      'Apply failed with 1 conflict: conflict with "kubectl" using people.svc.run/v1alpha1: .spec.name',
    );
    const forced = applyConfiguration(shared, config({ name: 'Bea', age: 36 }), options('tool', T1, true)).object;
    expect(forced.spec).toEqual({ name: 'Bea', age: 36 });
    expect(forced.metadata.managedFields!.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['kubectl', { 'f:spec': { 'f:age': {} } }],
      ['tool', { 'f:spec': { 'f:name': {}, 'f:age': {} } }],
    ]);
  });
});
