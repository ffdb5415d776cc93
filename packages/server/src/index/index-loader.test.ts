import { type ExtensionObject, type IndexSpec, indexFunc } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { ModelIndex } from './model-index.js';
import { parseFieldSelector, parseLabelSelector, parseSort } from './selectors.js';

const SPECS: IndexSpec[] = [
  { name: 'spec.name', unique: true },
  { name: 'spec.group' },
  { name: 'spec.tags', indexFunc: indexFunc.multi('spec.tags') },
];

function object(name: string, spec: Record<string, unknown>, labels?: unknown): ExtensionObject {
  return {
    apiVersion: 'test.svc.run/v1',
    kind: 'Thing',
    metadata: {
      name,
      // Ties, so that sorts on it fall back to names.
      creationTimestamp: `2026-01-01T00:00:${String(name.length).padStart(2, '0')}.000Z`,
      ...(labels ? { labels } : {}),
    } as ExtensionObject['metadata'],
    spec,
  };
}

/** Objects whose spec.group (and label `g`) values hold 1, 2, 64, 65 and 300 objects: every form a group takes. */
function groupedObjects(): ExtensionObject[] {
  const objects: ExtensionObject[] = [];
  for (const size of [1, 2, 64, 65, 300]) {
    for (let i = 0; i < size; i++) {
      // Names whose natural order differs from their code-unit order, some with leading zeros.
      const name = `t${size}-${i % 7 === 0 ? '0' : ''}${i}`;
      const spec = { name: `full ${name}`, group: `g${size}`, tags: i % 3 ? ['a', String(i % 4)] : [] };
      objects.push(object(name, spec, { g: `g${size}`, ...(i % 2 ? { odd: 'yes' } : {}) }));
    }
  }
  // In reverse, so the load has to sort.
  return objects.reverse();
}

const QUERIES: Array<{ labels?: string; fields?: string; sort?: string[]; page?: number; size?: number }> = [
  {},
  { sort: ['name'] },
  { sort: ['name,desc'], size: 7, page: 3 },
  { sort: ['spec.group,desc'], size: 50, page: 2 },
  { sort: ['spec.tags', 'name,desc'] },
  { fields: 'spec.group=g65', sort: ['name'] },
  { fields: 'spec.group=g300', sort: ['name,desc'], size: 10, page: 4 },
  { fields: 'spec.group!=g64', sort: ['spec.group', 'name'], size: 100 },
  { fields: 'spec.tags=a', sort: ['spec.name'] },
  { labels: 'g=g64,odd', sort: ['name'] },
  { labels: 'g in (g1,g2,g65)', sort: ['metadata.creationTimestamp,desc'] },
  { labels: '!odd', fields: 'spec.tags=0', sort: ['spec.group'] },
];

/** Everything the queries and counts tell about an index. */
function observe(index: ModelIndex) {
  const pages = QUERIES.map(({ labels, fields, sort, page, size }) =>
    index.query({
      labels: parseLabelSelector(labels),
      fields: parseFieldSelector(fields),
      sort: parseSort(sort),
      ...(page ? { page } : {}),
      ...(size ? { size } : {}),
    }),
  );
  const counts = Object.fromEntries(index.indexNames().map((name) => [name, index.countBy(name)]));
  return { size: index.size, names: index.names(), pages, counts };
}

function applied(objects: readonly ExtensionObject[]): ModelIndex {
  const index = new ModelIndex(SPECS, 'Thing');
  for (const each of objects) index.apply(index.has(each.metadata.name) ? each : undefined, each);
  return index;
}

function loaded(objects: readonly ExtensionObject[]): ModelIndex {
  const index = new ModelIndex(SPECS, 'Thing');
  index.load(objects);
  return index;
}

describe('ModelIndex.load', () => {
  it('builds groups of every size as apply does, and takes later writes alike', () => {
    const objects = groupedObjects();
    const [fromLoad, fromApply] = [loaded(objects), applied(objects)];
    expect(observe(fromLoad)).toEqual(observe(fromApply));
    expect(fromLoad.countBy('spec.group')).toEqual({ g1: 1, g2: 2, g64: 64, g65: 65, g300: 300 });

    // Shrink the groups past the array/B-tree limits, grow others past them, move objects between groups.
    for (const each of objects) {
      const [, size, i] = /^t(\d+)-(\d+)$/.exec(each.metadata.name)!.map(Number) as [number, number, number];
      if (size === 65 && i > 20) for (const index of [fromLoad, fromApply]) index.apply(each, undefined);
      if (size === 300 && i % 2 === 0) {
        const moved = object(each.metadata.name, { name: `moved ${i}`, group: 'g64', tags: ['b'] }, { g: 'g64' });
        for (const index of [fromLoad, fromApply]) index.apply(each, moved);
      }
    }
    for (let i = 0; i < 80; i++) {
      const added = object(`new-${i}`, { name: `new ${i}`, group: 'g2' }, { g: 'g2' });
      for (const index of [fromLoad, fromApply]) index.apply(undefined, added);
    }
    expect(observe(fromLoad)).toEqual(observe(fromApply));
    expect(fromLoad.countBy('spec.group')).toEqual({ g1: 1, g2: 82, g64: 214, g65: 21, g300: 150 });
  });

  it('takes an empty list, and then writes', () => {
    const index = loaded([]);
    expect(observe(index)).toEqual(observe(applied([])));
    index.apply(undefined, object('a', { name: 'A' }));
    expect(index.names()).toEqual(['a']);
  });

  it('keeps the last of several objects with one name, as apply does', () => {
    const objects = [
      object('a', { name: 'A1', group: 'x' }),
      object('b', { name: 'B' }),
      object('a', { name: 'A2', group: 'y' }),
    ];
    expect(observe(loaded(objects))).toEqual(observe(applied(objects)));
    expect(loaded(objects).countBy('spec.group')).toEqual({ y: 1 });
  });

  it('copies labels as apply does: string values only, no __proto__', () => {
    const labels = JSON.parse('{"app":"web","n":5,"__proto__":"x","o":{"k":"v"}}') as unknown;
    const objects = [object('a', { name: 'A' }, labels), object('b', { name: 'B' }, ['web'])];
    expect(observe(loaded(objects))).toEqual(observe(applied(objects)));
    expect(loaded(objects).countBy('metadata.labels')).toEqual({ 'app=web': 1, '0=web': 1 });
  });

  it('checks unique values after a load as after applies', () => {
    const index = loaded(groupedObjects());
    const taken = /already holds value "full t2-1" \(for "t2-1"\)/;
    expect(() => index.checkUnique(object('x', { name: 'full t2-1' }))).toThrow(taken);
    expect(() => index.checkUnique(object('t2-1', { name: 'full t2-1' }))).not.toThrow();
  });

  it('fails on a unique value held by several objects, naming index, value and objects, and stays empty', () => {
    const objects = [
      object('b', { name: 'Ada' }),
      object('a', { name: 'Ada' }),
      object('c', { name: 'Grace' }),
      object('d', { name: 'Ada' }),
      object('e', { name: 'Ada' }),
      object('f', { name: 'Ada' }),
    ];
    const index = new ModelIndex(SPECS, 'test.svc.run/v1 Thing');
    expect(() => index.load(objects)).toThrow(
      'test.svc.run/v1 Thing: unique index "spec.name" holds value "Ada" for 5 objects: "a", "b", "d", 2 more',
    );
    expect(observe(index)).toEqual(observe(applied([])));
    index.load(objects.slice(2, 4));
    expect(index.names()).toEqual(['c', 'd']);
  });

  it('lets any number of objects lack a unique value, and checks each value of a multi-value unique index', () => {
    const specs: IndexSpec[] = [{ name: 'spec.codes', unique: true, indexFunc: indexFunc.multi('spec.codes') }];
    const index = new ModelIndex(specs, 'Thing');
    index.load([object('a', {}), object('b', {}), object('c', { codes: ['1', '2'] }), object('d', { codes: ['3'] })]);
    expect(index.countBy('spec.codes')).toEqual({ '1': 1, '2': 1, '3': 1 });
    expect(() =>
      new ModelIndex(specs, 'Thing').load([object('c', { codes: ['1', '2'] }), object('d', { codes: ['3', '2'] })]),
    ).toThrow('Thing: unique index "spec.codes" holds value "2" for 2 objects: "c", "d"');
  });

  it('refuses an index that holds objects', () => {
    const index = loaded([object('a', { name: 'A' })]);
    expect(() => index.load([object('b', { name: 'B' })])).toThrow('Thing: a bulk load needs an empty index');
    expect(index.names()).toEqual(['a']);
    // Also when the object came in between the start and the end of the load.
    const other = new ModelIndex(SPECS, 'Thing');
    const loader = other.loader();
    loader.add(object('b', { name: 'B' }));
    other.apply(undefined, object('c', { name: 'C' }));
    expect(() => loader.finish()).toThrow('Thing: a bulk load needs an empty index');
    expect(other.names()).toEqual(['c']);
  });

  it('passes on an indexFunc failure, leaving the index empty', () => {
    const failing: IndexSpec[] = [
      {
        name: 'spec.odd',
        indexFunc: (each) => {
          if (each.metadata.name === 'bad') throw new Error('no');
          return 'x';
        },
      },
    ];
    const index = new ModelIndex(failing, 'Thing');
    const failure = /indexFunc of index "spec.odd" of Thing failed on "bad": no/;
    expect(() => index.load([object('a', {}), object('bad', {})])).toThrow(failure);
    expect(index.size).toBe(0);
  });
});
