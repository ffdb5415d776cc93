/**
 * Compares ModelIndex.query with a naive filter-and-sort over the same objects, for random objects, random writes
 * and random queries. The naive side reads fields by itself and uses only the pure matchers and naturalCompare.
 */

import { type ExtensionObject, type IndexSpec, indexFunc } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { ModelIndex } from './model-index.js';
import { naturalCompare } from './natural-compare.js';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  parseSort,
  type SortTerm,
} from './selectors.js';

let seed = 20260101;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (p: number) => random() < p;

const SPECS: IndexSpec[] = [
  { name: 'spec.name', unique: true },
  { name: 'spec.age' },
  { name: 'spec.gender' },
  { name: 'spec.tags', indexFunc: indexFunc.multi('spec.tags') },
];
const APPS = ['web', 'api', 'db', 'queue'];
const TIERS = ['a', 'b'];
const GENDERS = ['MALE', 'FEMALE'];
const TAGS = ['x', 'y', 'z', '10', '9'];
const TIMES = Array.from(
  { length: 40 },
  (_, i) => `2026-01-${String(1 + (i % 28)).padStart(2, '0')}T00:00:${String(i).padStart(2, '0')}.000Z`,
);

function randomObject(name: string, serial: number): ExtensionObject {
  const labels: Record<string, string> = {};
  if (chance(0.8)) labels['app'] = chance(0.6) ? 'web' : pick(APPS);
  if (chance(0.4)) labels['tier'] = pick(TIERS);
  if (chance(0.05)) labels['rare'] = 'yes';
  const spec: Record<string, unknown> = { name: `full-${serial}` };
  if (chance(0.95)) spec['age'] = Math.floor(random() * 151);
  if (chance(0.9)) spec['gender'] = chance(0.5) ? 'FEMALE' : 'MALE';
  if (chance(0.5)) spec['tags'] = TAGS.filter(() => chance(0.3));
  return {
    apiVersion: 'people.svc.run/v1alpha1',
    kind: 'Person',
    metadata: {
      name,
      creationTimestamp: pick(TIMES),
      ...(chance(0.1) ? { deletionTimestamp: pick(TIMES) } : {}),
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
    },
    spec,
  };
}

/** The naive reading of an index's values for one object. */
function valuesOf(object: ExtensionObject, field: string): string[] {
  const spec = object.spec ?? {};
  const text = (value: unknown) => (value === undefined || value === null ? [] : [String(value)]);
  switch (field) {
    case 'name':
    case 'metadata.name':
      return [object.metadata.name];
    case 'metadata.labels':
      return Object.entries(object.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`);
    case 'metadata.creationTimestamp':
      return text(object.metadata.creationTimestamp);
    case 'metadata.deletionTimestamp':
      return text(object.metadata.deletionTimestamp);
    case 'spec.tags':
      return [...new Set(((spec['tags'] as unknown[] | undefined) ?? []).map(String))];
    default:
      return text(spec[field.slice('spec.'.length)]);
  }
}

function sortValue(object: ExtensionObject, term: SortTerm): string {
  const values = valuesOf(object, term.field);
  if (values.length === 0) return '';
  const sorted = [...values].sort(naturalCompare);
  return term.direction === 'desc' ? sorted[sorted.length - 1]! : sorted[0]!;
}

function naive(
  objects: Map<string, ExtensionObject>,
  labels?: string,
  fields?: string,
  sort?: string[],
  page = 1,
  size?: number,
) {
  const labelReqs = parseLabelSelector(labels);
  const fieldReqs = parseFieldSelector(fields);
  const terms = parseSort(sort);
  const effective: SortTerm[] = terms.length > 0 ? terms : [{ field: 'metadata.creationTimestamp', direction: 'desc' }];
  const matches = [...objects.values()].filter(
    (o) => matchesLabels(labelReqs, o.metadata.labels) && matchesFields(fieldReqs, (f) => valuesOf(o, f)),
  );
  matches.sort((a, b) => {
    for (const term of effective) {
      const c = naturalCompare(sortValue(a, term), sortValue(b, term));
      if (c !== 0) return term.direction === 'desc' ? -c : c;
    }
    return naturalCompare(a.metadata.name, b.metadata.name);
  });
  const names = matches.map((o) => o.metadata.name);
  return { names: size ? names.slice((page - 1) * size, page * size) : names, total: names.length };
}

function randomLabelTerm(): string {
  const key = pick(['app', 'app', 'tier', 'rare', 'missing']);
  const values = () => [pick(APPS), pick(TIERS)].slice(0, 1 + Math.floor(random() * 2)).join(',');
  return pick([
    () => `${key}=${pick([...APPS, ...TIERS])}`,
    () => `${key}!=${pick([...APPS, ...TIERS])}`,
    () => key,
    () => `!${key}`,
    () => `${key} in (${values()})`,
    () => `${key} notin (${values()})`,
    () => `${key}=(${values()})`,
  ])();
}

function randomFieldTerm(): string {
  const [field, values] = pick<[string, readonly string[]]>([
    ['spec.age', ['0', '10', '42', '150', String(Math.floor(random() * 151))]],
    ['spec.gender', [...GENDERS, '']],
    ['spec.tags', [...TAGS, '']],
    ['metadata.deletionTimestamp', ['', TIMES[3]!]],
    ['metadata.creationTimestamp', [pick(TIMES)]],
    ['name', ['p-1', 'p-10', 'p-999', 'nobody']],
    ['spec.name', ['full-5', 'full-77', 'none']],
    ['metadata.labels', ['app=web', 'tier=a', '']],
  ]);
  return pick([
    () => `${field}=${pick(values)}`,
    () => `${field}!=${pick(values)}`,
    () => `${field}=(${pick(values)},${pick(values)})`,
  ])();
}

const SORTABLE = [
  'metadata.name',
  'name',
  'spec.age',
  'spec.gender',
  'spec.tags',
  'spec.name',
  'metadata.creationTimestamp',
  'metadata.deletionTimestamp',
];

interface RandomQuery {
  labels: string | undefined;
  fields: string | undefined;
  sort: string[];
  page: number;
  size: number | undefined;
}

function randomQuery(): RandomQuery {
  const labels = Array.from({ length: Math.floor(random() * 3) }, randomLabelTerm).join(',') || undefined;
  const fields = Array.from({ length: Math.floor(random() * 3) }, randomFieldTerm).join(',') || undefined;
  const sort = Array.from({ length: Math.floor(random() * 3) }, () => `${pick(SORTABLE)},${pick(['asc', 'desc'])}`);
  const size = pick([undefined, 1, 7, 20, 20, 500]);
  const page = size ? 1 + Math.floor(random() ** 2 * 8) : 1;
  return { labels, fields, sort, page, size };
}

function run(index: ModelIndex, { labels, fields, sort, page, size }: RandomQuery) {
  return index.query({
    labels: parseLabelSelector(labels),
    fields: parseFieldSelector(fields),
    sort: parseSort(sort),
    page,
    ...(size ? { size } : {}),
  });
}

let serial = 0;

/** A random create, update or delete (of `name`, or of a random name), made to every index and to `objects`. */
function write(
  indexes: readonly ModelIndex[],
  objects: Map<string, ExtensionObject>,
  name = `p-${Math.floor(random() * 2600)}`,
) {
  const prev = objects.get(name);
  if (prev && chance(0.2)) {
    for (const index of indexes) index.apply(prev, undefined);
    objects.delete(name);
    return;
  }
  const next = randomObject(name, serial++);
  for (const index of indexes) {
    index.checkUnique(next);
    index.apply(prev, next);
  }
  objects.set(name, next);
}

describe('ModelIndex against a naive filter-and-sort', () => {
  it('agrees on random queries over 2,000 random objects with random writes', () => {
    const index = new ModelIndex(SPECS, 'Person');
    const objects = new Map<string, ExtensionObject>();
    for (let i = 0; i < 2000; i++) write([index], objects, `p-${i}`);

    for (let round = 0; round < 1000; round++) {
      if (round % 50 === 0) for (let w = 0; w < 100; w++) write([index], objects);
      const query = randomQuery();
      const expected = naive(objects, query.labels, query.fields, query.sort, query.page, query.size);
      expect({ ...run(index, query), query }).toEqual({ ...expected, query });
    }
    expect(index.size).toBe(objects.size);
    expect(index.names()).toEqual([...objects.keys()].sort(naturalCompare));
  });

  it('answers alike when bulk-loaded from 2,000 random objects, before and after random writes', () => {
    seed = 20260202;
    const objects = new Map<string, ExtensionObject>();
    for (let i = 0; i < 2000; i++) objects.set(`p-${i}`, randomObject(`p-${i}`, serial++));
    const applied = new ModelIndex(SPECS, 'Person');
    for (const object of objects.values()) applied.apply(undefined, object);
    // In random order, so that the load's own sort is what puts records in name order.
    const shuffled = [...objects.values()].map((object) => ({ object, key: random() })).sort((a, b) => a.key - b.key);
    const loaded = new ModelIndex(SPECS, 'Person');
    loaded.load(shuffled.map(({ object }) => object));

    for (let round = 0; round < 600; round++) {
      if (round % 50 === 25) for (let w = 0; w < 100; w++) write([applied, loaded], objects);
      const query = randomQuery();
      const expected = naive(objects, query.labels, query.fields, query.sort, query.page, query.size);
      expect({ ...run(loaded, query), query }).toEqual({ ...run(applied, query), query });
      expect({ ...run(loaded, query), query }).toEqual({ ...expected, query });
    }
    for (const name of loaded.indexNames()) expect(loaded.countBy(name)).toEqual(applied.countBy(name));
    expect(loaded.size).toBe(objects.size);
    expect(loaded.names()).toEqual(applied.names());
  });
});
