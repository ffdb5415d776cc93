import { describe, expect, it } from 'vitest';
import { cellOf, humanDuration, toTable } from './table.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('humanDuration, as Kubernetes prints ages', () => {
  it.each([
    [-3 * S, '<invalid>'],
    [-1 * S, '0s'],
    [0, '0s'],
    [59 * S, '59s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [3 * M + 20 * S, '3m20s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 5 * M, '8h'],
    [47 * H, '47h'],
    [2 * D, '2d'],
    [3 * D + 4 * H, '3d4h'],
    [8 * D, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [740 * D, '2y10d'],
    [8 * 365 * D + 5 * D, '8y'],
  ])('%d ms is %s', (ms, expected) => {
    expect(humanDuration(ms)).toBe(expected);
  });
});

describe('cells', () => {
  const now = new Date('2026-01-02T03:04:05Z');
  it.each([
    ['integer', 42, 42],
    ['integer', 4.7, 4],
    ['integer', '42', null],
    ['number', 4.5, 4.5],
    ['boolean', false, false],
    ['boolean', 'true', null],
    ['string', 'x', 'x'],
    ['string', 7, '7'],
    ['string', { a: 1 }, null],
    ['string', undefined, null],
    ['date', '2026-01-02T03:03:05Z', '60s'],
    ['date', 'yesterday', '<invalid>'],
    ['date', undefined, '<unknown>'],
  ] as const)('%s %j is %j', (type, value, expected) => {
    expect(cellOf(type, value, now)).toEqual(expected);
  });
});

describe('toTable', () => {
  const model = {
    printerColumns: [
      { name: 'Years', type: 'integer' as const, jsonPath: '.spec.age' },
      { name: 'Ready', type: 'string' as const, jsonPath: '.status.conditions[0].status', priority: 1 },
    ],
  };
  const object = {
    apiVersion: 'people.svc.run/v1alpha1',
    kind: 'Person',
    metadata: { name: 'ada', creationTimestamp: '2026-01-02T03:00:05Z', resourceVersion: '7' },
    spec: { age: 36 },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
  const now = new Date('2026-01-02T03:04:05Z');

  it('has Name, the declared columns and Age, and rows carrying partial metadata by default', () => {
    const table = toTable(model, [object], {
      version: 'v1',
      includeObject: 'Metadata',
      withColumns: true,
      listMeta: { resourceVersion: '9' },
      now,
    });
    expect(table).toEqual({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '9' },
      columnDefinitions: [
        {
          name: 'Name',
          type: 'string',
          format: 'name',
          description: 'The name of the object, unique among the objects of its model.',
          priority: 0,
        },
        { name: 'Years', type: 'integer', format: '', description: '', priority: 0 },
        { name: 'Ready', type: 'string', format: '', description: '', priority: 1 },
        {
          name: 'Age',
          type: 'date',
          format: '',
          description: 'How long ago the object was created (metadata.creationTimestamp).',
          priority: 0,
        },
      ],
      rows: [
        {
          cells: ['ada', 36, 'True', '4m'],
          object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata },
        },
      ],
    });
  });

  it('leaves out the columns when asked, and carries the whole object or none', () => {
    const whole = toTable(model, [object], { version: 'v1beta1', includeObject: 'Object', withColumns: false, now });
    expect(whole).toEqual({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1beta1',
      metadata: {},
      rows: [{ cells: ['ada', 36, 'True', '4m'], object }],
    });
    const none = toTable(model, [object], { version: 'v1', includeObject: 'None', withColumns: false, now });
    expect(none.rows).toEqual([{ cells: ['ada', 36, 'True', '4m'] }]);
  });
});
