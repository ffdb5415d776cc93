import type { ExtensionObject, ManagedFieldsEntry } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { stampNew, stampReplacement } from './server-fields.js';

const NOW = new Date('2024-03-01T12:00:00.000Z');
const FIELDS: ManagedFieldsEntry[] = [
  {
    manager: 'kubectl',
    operation: 'Apply',
    apiVersion: 'example.com/v1',
    time: 'T',
    fieldsType: 'FieldsV1',
    fieldsV1: {},
  },
];

const body = (metadata: Partial<ExtensionObject['metadata']> = {}, fields: Record<string, unknown> = {}) =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w1', ...metadata },
    ...fields,
  }) as ExtensionObject;

const plain = { finalizers: [] as string[], statusSubresource: false };

describe('stampNew', () => {
  it.each([
    [
      'the server fields, whatever the body says',
      plain,
      body({ uid: 'mine', version: 7, creationTimestamp: 'then', deletionTimestamp: 'then' }),
      {},
      body({ uid: 'u-1', version: 0, creationTimestamp: NOW.toISOString() }),
    ],
    [
      "the model's finalizers after the body's own",
      { ...plain, finalizers: ['example.com/courier'] },
      body({ finalizers: ['mine'] }),
      {},
      body({
        uid: 'u-1',
        version: 0,
        creationTimestamp: NOW.toISOString(),
        finalizers: ['mine', 'example.com/courier'],
      }),
    ],
    [
      "no status under a status subresource, and no field managers but an apply's",
      { ...plain, statusSubresource: true },
      body({ managedFields: FIELDS }, { status: { ready: true } }),
      {},
      body({ uid: 'u-1', version: 0, creationTimestamp: NOW.toISOString() }),
    ],
    [
      "an apply's field managers, and status where the model has no subresource",
      plain,
      body({ managedFields: FIELDS, generateName: 'w' }, { status: { ready: true } }),
      { applied: true },
      body(
        { uid: 'u-1', version: 0, creationTimestamp: NOW.toISOString(), managedFields: FIELDS, generateName: 'w' },
        { status: { ready: true } },
      ),
    ],
  ])('stamps %s', (_, model, object, options, expected) => {
    expect(stampNew(model, object, { uid: 'u-1', now: NOW }, options)).toEqual(expected);
  });
});

describe('stampReplacement', () => {
  const prev = body(
    { uid: 'u-1', version: 4, creationTimestamp: 'created', resourceVersion: '9', labels: { a: '1' } },
    { spec: { size: 1 }, status: { ready: true } },
  );
  const kept = { uid: 'u-1', version: 5, creationTimestamp: 'created' };

  it.each([
    [
      "the stored uid, creation time and deletion, one version on; the body's spec and status",
      plain,
      body(
        { uid: 'x', version: 4, creationTimestamp: 'x', deletionTimestamp: 'x', generateName: 'g' },
        { spec: { size: 2 } },
      ),
      {},
      body(kept, { spec: { size: 2 } }),
    ],
    [
      'the stored status under a status subresource',
      { statusSubresource: true },
      body({ version: 4 }, { spec: { size: 2 }, status: { ready: false } }),
      {},
      body(kept, { spec: { size: 2 }, status: { ready: true } }),
    ],
    [
      "the stored object with the body's status, for a status write",
      { statusSubresource: true },
      body({ version: 4, labels: { b: '2' } }, { spec: { size: 2 }, status: { ready: false } }),
      { subresource: 'status' as const },
      body({ ...prev.metadata, version: 5 }, { spec: { size: 1 }, status: { ready: false } }),
    ],
    [
      'no status, for a status write without one',
      { statusSubresource: true },
      body({ version: 4 }),
      { subresource: 'status' as const },
      body({ ...prev.metadata, version: 5 }, { spec: { size: 1 } }),
    ],
    [
      "the deletion's timestamp, for a delete",
      plain,
      body({ version: 4, deletionTimestamp: 'now' }),
      { deleting: true },
      body({ ...kept, deletionTimestamp: 'now' }),
    ],
    ["the stored field managers, not the body's", plain, body({ version: 4, managedFields: FIELDS }), {}, body(kept)],
    [
      "an apply's field managers",
      plain,
      body({ version: 4, managedFields: FIELDS }),
      { applied: true },
      body({ ...kept, managedFields: FIELDS }),
    ],
  ])('keeps %s', (_, model, next, options, expected) => {
    expect(stampReplacement(model, prev, next, options)).toEqual(expected);
  });

  it('leaves the stored object as it was', () => {
    const before = structuredClone(prev);
    stampReplacement({ statusSubresource: true }, prev, body({ version: 4 }), { subresource: 'status' });
    expect(prev).toEqual(before);
  });
});
