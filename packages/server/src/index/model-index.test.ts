import { type ExtensionObject, type IndexSpec, indexFunc, isApiError } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { type IndexQuery, ModelIndex } from './model-index.js';
import { parseFieldSelector, parseLabelSelector, parseSort } from './selectors.js';

interface PersonInput {
  age?: number;
  gender?: string;
  created?: string;
  deleted?: string;
  labels?: Record<string, string>;
  tags?: string[];
  fullName?: string;
}

function person(name: string, input: PersonInput = {}): ExtensionObject {
  return {
    apiVersion: 'people.svc.run/v1alpha1',
    kind: 'Person',
    metadata: {
      name,
      creationTimestamp: input.created ?? '2026-01-01T00:00:00.000Z',
      ...(input.deleted ? { deletionTimestamp: input.deleted } : {}),
      ...(input.labels ? { labels: input.labels } : {}),
    },
    spec: {
      name: input.fullName ?? `Full ${name}`,
      ...(input.age !== undefined ? { age: input.age } : {}),
      ...(input.gender ? { gender: input.gender } : {}),
      ...(input.tags ? { tags: input.tags } : {}),
    },
  };
}

const SPECS: IndexSpec[] = [
  { name: 'spec.name', unique: true },
  { name: 'spec.age' },
  { name: 'spec.gender' },
  { name: 'spec.tags', indexFunc: indexFunc.multi('spec.tags') },
];

function query(
  index: ModelIndex,
  params: { labels?: string; fields?: string; sort?: string | string[]; page?: number; size?: number },
) {
  const q: IndexQuery = {
    labels: parseLabelSelector(params.labels),
    fields: parseFieldSelector(params.fields),
    sort: parseSort(params.sort),
    ...(params.page !== undefined ? { page: params.page } : {}),
    ...(params.size !== undefined ? { size: params.size } : {}),
  };
  return index.query(q);
}

/** Matching names in name order. */
const select = (index: ModelIndex, labels?: string, fields?: string) =>
  query(index, { ...(labels ? { labels } : {}), ...(fields ? { fields } : {}), sort: 'name' }).names;

function errorOf(run: () => unknown): { status: number; reason: string; detail: string } {
  try {
    run();
  } catch (error) {
    if (isApiError(error)) return { status: error.status, reason: error.reason, detail: error.detail };
    throw error;
  }
  throw new Error('expected an ApiError');
}

/** Everything observable about the index, to compare before and after. */
function snapshot(index: ModelIndex) {
  const byIndex = Object.fromEntries(index.indexNames().map((name) => [name, index.countBy(name)]));
  return { names: index.names(), byIndex, all: query(index, {}).names };
}

function sample(): ModelIndex {
  const index = new ModelIndex(SPECS, 'Person (people.svc.run/v1alpha1)');
  index.apply(
    undefined,
    person('ann', {
      age: 30,
      gender: 'FEMALE',
      created: '2026-01-03T00:00:00.000Z',
      labels: { app: 'web', tier: 'a' },
      tags: ['x', 'y'],
    }),
  );
  index.apply(
    undefined,
    person('bob', { age: 9, gender: 'MALE', created: '2026-01-01T00:00:00.000Z', labels: { app: 'api' } }),
  );
  index.apply(
    undefined,
    person('cy10', { age: 10, created: '2026-01-02T00:00:00.000Z', labels: { app: 'web' }, tags: ['y'] }),
  );
  index.apply(
    undefined,
    person('cy9', {
      age: 10,
      gender: 'FEMALE',
      created: '2026-01-02T00:00:00.000Z',
      deleted: '2026-02-01T00:00:00.000Z',
    }),
  );
  return index;
}

describe('ModelIndex: maintenance', () => {
  it('indexes inserted objects in every index', () => {
    const index = sample();
    expect(index.size).toBe(4);
    expect(index.names()).toEqual(['ann', 'bob', 'cy9', 'cy10']);
    expect(index.has('bob')).toBe(true);
    expect(index.countBy('spec.gender')).toEqual({ FEMALE: 2, MALE: 1 });
    expect(index.countBy('spec.age')).toEqual({ '30': 1, '9': 1, '10': 2 });
    expect(index.countBy('metadata.labels')).toEqual({ 'app=web': 2, 'app=api': 1, 'tier=a': 1 });
    expect(index.countBy('spec.tags')).toEqual({ x: 1, y: 2 });
    expect(index.countBy('metadata.deletionTimestamp')).toEqual({ '2026-02-01T00:00:00.000Z': 1 });
    expect(index.countBy('name')).toEqual({ ann: 1, bob: 1, cy9: 1, cy10: 1 });
  });

  it('moves an updated object between values and forgets the old ones', () => {
    const index = sample();
    const prev = person('ann', { age: 30, gender: 'FEMALE', labels: { app: 'web', tier: 'a' }, tags: ['x', 'y'] });
    index.apply(
      prev,
      person('ann', {
        age: 31,
        gender: 'MALE',
        created: '2026-01-03T00:00:00.000Z',
        labels: { app: 'db' },
        tags: ['z'],
      }),
    );
    expect(index.size).toBe(4);
    expect(select(index, undefined, 'spec.age=30')).toEqual([]);
    expect(select(index, undefined, 'spec.age=31')).toEqual(['ann']);
    expect(select(index, 'app=web')).toEqual(['cy10']);
    expect(select(index, 'app=db')).toEqual(['ann']);
    expect(select(index, 'tier')).toEqual([]);
    expect(index.countBy('spec.gender')).toEqual({ FEMALE: 1, MALE: 2 });
    expect(index.countBy('spec.tags')).toEqual({ y: 1, z: 1 });
    expect(index.countBy('metadata.labels')).toEqual({ 'app=web': 1, 'app=api': 1, 'app=db': 1 });
  });

  it('removes an object from every index', () => {
    const index = sample();
    index.apply(person('ann'), undefined);
    index.apply(person('cy9'), undefined);
    expect(index.size).toBe(2);
    expect(index.has('ann')).toBe(false);
    expect(index.names()).toEqual(['bob', 'cy10']);
    expect(index.countBy('spec.gender')).toEqual({ MALE: 1 });
    expect(index.countBy('metadata.labels')).toEqual({ 'app=web': 1, 'app=api': 1 });
    expect(index.countBy('spec.tags')).toEqual({ y: 1 });
    expect(index.countBy('metadata.deletionTimestamp')).toEqual({});
    expect(query(index, {}).total).toBe(2);
    // Removing twice, or an unknown name, changes nothing.
    index.apply(person('ann'), undefined);
    expect(index.size).toBe(2);
  });

  it('treats an insert of an existing name as a replacement', () => {
    const index = sample();
    index.apply(undefined, person('bob', { age: 50 }));
    expect(index.size).toBe(4);
    expect(index.countBy('spec.age')).toEqual({ '30': 1, '50': 1, '10': 2 });
  });

  it('changes nothing when an indexFunc throws', () => {
    const index = new ModelIndex(
      [
        {
          name: 'spec.odd',
          indexFunc: (o) => {
            if (o.spec?.['bad']) throw new Error('boom');
            return 'ok';
          },
        },
      ],
      'Thing',
    );
    index.apply(undefined, person('a'));
    const before = snapshot(index);
    expect(() => index.apply(person('a'), { ...person('a'), spec: { bad: true } })).toThrow(/spec.odd.*Thing.*boom/);
    expect(snapshot(index)).toEqual(before);
  });

  it('refuses an index declared twice', () => {
    expect(() => new ModelIndex([{ name: 'spec.a' }, { name: 'spec.a' }], 'Thing')).toThrow(/spec.a.*twice/);
    expect(() => new ModelIndex([{ name: 'metadata.labels' }], 'Thing')).toThrow(/twice/);
  });
});

describe('ModelIndex: unique indexes', () => {
  it('rejects a duplicate value with a 409 naming the index and the value, and leaves the index unchanged', () => {
    const index = sample();
    const before = snapshot(index);
    const error = errorOf(() => index.checkUnique(person('dan', { fullName: 'Full bob' })));
    expect(error.status).toBe(409);
    expect(error.reason).toBe('Conflict');
    expect(error.detail).toContain('spec.name');
    expect(error.detail).toContain('"Full bob"');
    expect(error.detail).toContain('"bob"');
    expect(snapshot(index)).toEqual(before);
  });

  it('ignores the object’s own entry, and objects without a value', () => {
    const index = sample();
    expect(() => index.checkUnique(person('bob', { age: 99 }))).not.toThrow();
    const a = { ...person('x1'), spec: {} };
    index.apply(undefined, a);
    expect(() => index.checkUnique({ ...person('x2'), spec: {} })).not.toThrow();
  });

  it('reports an existing name as AlreadyExists when creating', () => {
    const index = sample();
    const error = errorOf(() => index.checkUnique(person('bob', { fullName: 'new' }), { creating: true }));
    expect(error).toMatchObject({ status: 409, reason: 'AlreadyExists' });
    expect(error.detail).toContain('"bob"');
    expect(error.detail).toContain('metadata.name');
  });
});

describe('ModelIndex: selectors', () => {
  const index = sample();
  const table: Array<[string | undefined, string | undefined, string[]]> = [
    ['app=web', undefined, ['ann', 'cy10']],
    ['app==web', undefined, ['ann', 'cy10']],
    ['app!=web', undefined, ['bob', 'cy9']],
    ['app', undefined, ['ann', 'bob', 'cy10']],
    ['!app', undefined, ['cy9']],
    ['app in (api,web)', undefined, ['ann', 'bob', 'cy10']],
    ['app notin (api,web)', undefined, ['cy9']],
    ['app=(api)', undefined, ['bob']],
    ['app=web,tier=a', undefined, ['ann']],
    ['app=web,!tier', undefined, ['cy10']],
    ['app=nope', undefined, []],
    ['nope!=x', undefined, ['ann', 'bob', 'cy9', 'cy10']],
    [undefined, 'spec.gender=FEMALE', ['ann', 'cy9']],
    [undefined, 'spec.gender==MALE', ['bob']],
    [undefined, 'spec.gender!=FEMALE', ['bob', 'cy10']],
    [undefined, 'spec.gender=', ['cy10']],
    [undefined, 'spec.gender=(MALE,)', ['bob', 'cy10']],
    [undefined, 'spec.age=(9,30)', ['ann', 'bob']],
    [undefined, 'spec.age!=(9,30)', ['cy9', 'cy10']],
    [undefined, 'name=bob', ['bob']],
    [undefined, 'metadata.name=(bob,zed,ann)', ['ann', 'bob']],
    [undefined, 'name!=bob', ['ann', 'cy9', 'cy10']],
    [undefined, 'metadata.deletionTimestamp=', ['ann', 'bob', 'cy10']],
    [undefined, 'metadata.deletionTimestamp!=', ['cy9']],
    [undefined, 'metadata.creationTimestamp=2026-01-02T00:00:00.000Z', ['cy9', 'cy10']],
    [undefined, 'metadata.labels=app=web', ['ann', 'cy10']],
    [undefined, 'metadata.labels!=app=web', ['bob', 'cy9']],
    [undefined, 'metadata.labels=', ['cy9']],
    [undefined, 'metadata.labels!=', ['ann', 'bob', 'cy10']],
    [undefined, 'spec.tags=y', ['ann', 'cy10']],
    [undefined, 'spec.tags!=y', ['bob', 'cy9']],
    [undefined, 'spec.tags=(x,y)', ['ann', 'cy10']],
    [undefined, 'spec.tags=', ['bob', 'cy9']],
    [undefined, 'spec.gender=FEMALE,spec.age=10', ['cy9']],
    ['app=web', 'spec.age=10', ['cy10']],
    ['app', 'spec.gender!=MALE,metadata.deletionTimestamp=', ['ann', 'cy10']],
  ];
  it.each(table)('labels %j fields %j', (labels, fields, expected) => {
    expect(select(index, labels, fields)).toEqual(expected);
    expect(index.count(parseLabelSelector(labels), parseFieldSelector(fields))).toBe(expected.length);
    expect(query(index, { ...(labels ? { labels } : {}), ...(fields ? { fields } : {}), size: 1 }).total).toBe(
      expected.length,
    );
  });

  it('rejects an unknown field with a 400 naming it and listing the indexes', () => {
    for (const run of [
      () => query(index, { fields: 'spec.height=3' }),
      () => query(index, { sort: 'spec.height,desc' }),
      () => index.count([], parseFieldSelector('spec.height=3')),
    ]) {
      const error = errorOf(run);
      expect(error.status).toBe(400);
      expect(error.detail).toContain('"spec.height"');
      expect(error.detail).toContain('metadata.name, metadata.labels, metadata.creationTimestamp');
      expect(error.detail).toContain('spec.age');
    }
    expect(errorOf(() => query(index, { sort: 'metadata.labels' })).status).toBe(400);
  });

  it('validates a watch’s selectors and sort without querying', () => {
    expect(errorOf(() => index.validate({ fields: parseFieldSelector('spec.nope=1'), sort: [] })).status).toBe(400);
    expect(errorOf(() => index.validate({ fields: [], sort: parseSort('spec.nope') })).status).toBe(400);
    expect(() =>
      index.validate({ fields: parseFieldSelector('name=a'), sort: parseSort('spec.age,desc') }),
    ).not.toThrow();
  });

  it('matches single objects like the index does (for watches)', () => {
    for (const [labels, fields, expected] of table) {
      const names = ['ann', 'bob', 'cy9', 'cy10'].filter((name) =>
        index.matches(objectOf(name), parseLabelSelector(labels), parseFieldSelector(fields)),
      );
      expect(names).toEqual(expected);
    }
  });
});

function objectOf(name: string): ExtensionObject {
  const all: Record<string, ExtensionObject> = {
    ann: person('ann', {
      age: 30,
      gender: 'FEMALE',
      created: '2026-01-03T00:00:00.000Z',
      labels: { app: 'web', tier: 'a' },
      tags: ['x', 'y'],
    }),
    bob: person('bob', { age: 9, gender: 'MALE', created: '2026-01-01T00:00:00.000Z', labels: { app: 'api' } }),
    cy10: person('cy10', { age: 10, created: '2026-01-02T00:00:00.000Z', labels: { app: 'web' }, tags: ['y'] }),
    cy9: person('cy9', {
      age: 10,
      gender: 'FEMALE',
      created: '2026-01-02T00:00:00.000Z',
      deleted: '2026-02-01T00:00:00.000Z',
    }),
  };
  return all[name]!;
}

describe('ModelIndex: sort and paging', () => {
  const index = sample();
  const sorted = (sort?: string | string[]) => query(index, sort ? { sort } : {}).names;

  it('defaults to creationTimestamp descending, then name ascending', () => {
    expect(sorted()).toEqual(['ann', 'cy9', 'cy10', 'bob']);
  });

  it('sorts ascending and descending with ties name-ascending either way', () => {
    expect(sorted('spec.age')).toEqual(['bob', 'cy9', 'cy10', 'ann']);
    expect(sorted('spec.age,desc')).toEqual(['ann', 'cy9', 'cy10', 'bob']);
    expect(sorted('metadata.creationTimestamp,asc')).toEqual(['bob', 'cy9', 'cy10', 'ann']);
    expect(sorted('name,desc')).toEqual(['cy10', 'cy9', 'bob', 'ann']);
    // Objects without a value hold the empty value: first ascending, last descending.
    expect(sorted('spec.gender')).toEqual(['cy10', 'ann', 'cy9', 'bob']);
    expect(sorted('spec.gender,desc')).toEqual(['bob', 'ann', 'cy9', 'cy10']);
  });

  it('sorts by several terms', () => {
    expect(sorted(['spec.gender,desc', 'spec.age,desc'])).toEqual(['bob', 'ann', 'cy9', 'cy10']);
    expect(sorted(['spec.age', 'name,desc'])).toEqual(['bob', 'cy10', 'cy9', 'ann']);
  });

  it('sorts a multi-value index by the smallest value ascending and the largest descending', () => {
    expect(sorted('spec.tags')).toEqual(['bob', 'cy9', 'ann', 'cy10']);
    expect(sorted('spec.tags,desc')).toEqual(['ann', 'cy10', 'bob', 'cy9']);
  });

  it('pages', () => {
    expect(query(index, { size: 2 })).toEqual({ names: ['ann', 'cy9'], total: 4 });
    expect(query(index, { size: 2, page: 2 })).toEqual({ names: ['cy10', 'bob'], total: 4 });
    expect(query(index, { size: 3, page: 2 })).toEqual({ names: ['bob'], total: 4 });
    expect(query(index, { size: 2, page: 3 })).toEqual({ names: [], total: 4 });
    expect(query(index, { page: 2 })).toEqual({ names: ['ann', 'cy9', 'cy10', 'bob'], total: 4 });
    expect(query(index, { size: 1, page: 2, fields: 'spec.gender=FEMALE', sort: 'spec.age' })).toEqual({
      names: ['ann'],
      total: 2,
    });
  });
});

describe('ModelIndex: large groups', () => {
  it('keeps order and counts while groups grow past and shrink below the array limits', () => {
    const index = new ModelIndex(SPECS, 'Person');
    const names = Array.from({ length: 300 }, (_, i) => `p${i}`);
    for (const name of names) index.apply(undefined, person(name, { gender: 'FEMALE', age: 7 }));
    expect(query(index, { fields: 'spec.gender=FEMALE', sort: 'spec.age,desc', size: 3, page: 2 }).names).toEqual([
      'p3',
      'p4',
      'p5',
    ]);
    for (const name of names.slice(0, 290)) index.apply(person(name), undefined);
    expect(query(index, { fields: 'spec.gender=FEMALE', sort: 'spec.age,desc' }).names).toEqual(names.slice(290));
    expect(index.countBy('spec.gender')).toEqual({ FEMALE: 10 });
  });
});
