import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeObject } from './codec.js';
import { type Fixture, note, openFixture, reasonOf, START, widget } from './object-service-fixtures.suite.js';

let f: Fixture;
beforeEach(async () => {
  f = await openFixture();
});
afterEach(() => f.close());

describe('create', () => {
  it('stamps the fields the server owns, whatever the body says', async () => {
    const body = widget(
      'w1',
      { size: 3 },
      { uid: 'mine', version: 7, creationTimestamp: '1999-01-01T00:00:00Z', deletionTimestamp: '1999-01-01T00:00:00Z' },
    );
    const { object, bytes, removed } = await f.service.create(f.widgets, body);
    expect(removed).toBe(false);
    expect(object.metadata).toEqual({
      name: 'w1',
      uid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      creationTimestamp: START.toISOString(),
      version: 0,
      resourceVersion: '1',
    });
    expect(object.metadata.uid).not.toBe('mine');
    expect(decodeObject(bytes)).toEqual(object);
    expect((await f.store.get('example.com/widgets', 'w1'))?.value).toEqual(bytes);
  });

  it('drops status on a model with a status subresource, and keeps it on one without', async () => {
    expect(
      (await f.service.create(f.widgets, { ...widget('w1'), status: { ready: true } })).object.status,
    ).toBeUndefined();
    expect((await f.service.create(f.notes, note('n1', { status: { ready: true } }))).object.status).toEqual({
      ready: true,
    });
  });

  it('names an object from generateName: the prefix and five random letters or digits, a new name each time', async () => {
    const first = await f.service.create(f.widgets, { ...widget(''), metadata: { generateName: 'gear-' } });
    const second = await f.service.create(f.widgets, { ...widget(''), metadata: { generateName: 'gear-' } });
    expect(first.object.metadata.name).toMatch(/^gear-[a-z0-9]{5}$/);
    expect(second.object.metadata.name).toMatch(/^gear-[a-z0-9]{5}$/);
    expect(second.object.metadata.name).not.toBe(first.object.metadata.name);
    expect(first.object.metadata.generateName).toBe('gear-');
  });

  it('refuses a taken name and leaves the first object as it was', async () => {
    const first = await f.service.create(f.widgets, widget('w1', { size: 1 }));
    expect(await reasonOf(() => f.service.create(f.widgets, widget('w1', { size: 2 })))).toBe('AlreadyExists');
    expect(await f.service.get(f.widgets, 'w1')).toEqual(first.object);
  });

  it('refuses an object its schema does not allow, naming the field, and stores nothing', async () => {
    expect(() => f.service.create(f.widgets, widget('w1', { size: 'big' }))).toThrow(
      expect.objectContaining({ reason: 'Invalid', errors: [{ path: '/spec/size', message: 'must be integer' }] }),
    );
    expect(await f.store.count('example.com/widgets')).toBe(0);
    expect(f.widgets.index.has('w1')).toBe(false);
  });

  it('refuses a value a unique index already holds', async () => {
    await f.service.create(f.widgets, widget('w1', { sku: 'A-1' }));
    expect(await reasonOf(() => f.service.create(f.widgets, widget('w2', { sku: 'A-1' })))).toBe('Conflict');
    expect(f.widgets.index.has('w2')).toBe(false);
  });
});

describe('update', () => {
  it('writes the body over the stored object: version +1, uid and creationTimestamp kept', async () => {
    const created = (await f.service.create(f.widgets, widget('w1', { size: 1 }))).object;
    f.advance(60_000);
    const body = {
      ...created,
      metadata: { ...created.metadata, uid: 'other', creationTimestamp: '1999-01-01T00:00:00.000Z' },
      spec: { size: 2 },
    };
    const { object } = await f.service.update(f.widgets, 'w1', body);
    expect(object.spec).toEqual({ size: 2 });
    expect(object.metadata).toMatchObject({
      uid: created.metadata.uid,
      creationTimestamp: START.toISOString(),
      version: 1,
      resourceVersion: '2',
    });
  });

  it.each([
    {
      name: 'no metadata.version nor resourceVersion',
      change: { version: undefined, resourceVersion: undefined },
      path: 'w1',
      want: 'Conflict',
    },
    {
      name: 'only a stale metadata.resourceVersion',
      change: { version: undefined, resourceVersion: '99' },
      path: 'w1',
      want: 'Conflict',
    },
    { name: 'a stale metadata.version', change: { version: 5 }, path: 'w1', want: 'Conflict' },
    { name: 'a name other than the path’s', change: { name: 'w2' }, path: 'w1', want: 'Invalid' },
    { name: 'an object that does not exist', change: { name: 'nope' }, path: 'nope', want: 'NotFound' },
  ])('refuses $name: $want', async ({ change, path, want }) => {
    const created = (await f.service.create(f.widgets, widget('w1'))).object;
    expect(
      await reasonOf(() =>
        f.service.update(f.widgets, path, { ...created, metadata: { ...created.metadata, ...change } }),
      ),
    ).toBe(want);
    expect((await f.service.get(f.widgets, 'w1')).metadata.version).toBe(0);
  });
});

describe('the status subresource', () => {
  const stored = async () => {
    await f.service.create(f.widgets, widget('w1', { size: 1 }));
    return f.service.update(
      f.widgets,
      'w1',
      { ...(await f.service.get(f.widgets, 'w1')), status: { phase: 'old' } },
      { subresource: 'status' },
    );
  };

  it.each([
    {
      name: 'a main update changes spec and keeps stored status',
      subresource: undefined,
      want: { spec: { size: 9 }, status: { phase: 'old' } },
    },
    {
      name: 'a status update changes status and keeps stored spec',
      subresource: 'status' as const,
      want: { spec: { size: 1 }, status: { phase: 'new' } },
    },
  ])('$name', async ({ subresource, want }) => {
    const current = (await stored()).object;
    const { object } = await f.service.update(
      f.widgets,
      'w1',
      { ...current, spec: { size: 9 }, status: { phase: 'new' } },
      { subresource },
    );
    expect({ spec: object.spec, status: object.status }).toEqual(want);
    expect(object.metadata.version).toBe(2);
  });

  it('a status update without status removes it', async () => {
    const { status: _status, ...current } = (await stored()).object;
    expect((await f.service.update(f.widgets, 'w1', current, { subresource: 'status' })).object.status).toBeUndefined();
  });

  it('a model without the subresource takes status from the main update', async () => {
    const created = (await f.service.create(f.notes, note('n1', { status: { phase: 'old' } }))).object;
    expect((await f.service.update(f.notes, 'n1', { ...created, status: { phase: 'new' } })).object.status).toEqual({
      phase: 'new',
    });
  });
});

describe('patch', () => {
  it('applies a change to a copy of the current object and writes it as an update', async () => {
    await f.service.create(f.widgets, widget('w1', { size: 1 }));
    let seen: unknown;
    const { object } = await f.service.patch(f.widgets, 'w1', (current) => {
      seen = structuredClone(current);
      current.spec = { size: 2 };
      return current;
    });
    expect(seen).toMatchObject({ metadata: { version: 0 }, spec: { size: 1 } });
    expect(object).toMatchObject({ metadata: { version: 1 }, spec: { size: 2 } });
  });

  it.each([
    { name: 'a change that sets a stale version', change: { version: 4 }, want: 'Conflict' },
    { name: 'a change of the name', change: { name: 'w2' }, want: 'Invalid' },
  ])('refuses $name: $want', async ({ change, want }) => {
    await f.service.create(f.widgets, widget('w1'));
    const patching = () =>
      f.service.patch(f.widgets, 'w1', (current) => ({ ...current, metadata: { ...current.metadata, ...change } }));
    expect(await reasonOf(patching)).toBe(want);
  });

  it('answers NotFound for a missing object, without calling the change', async () => {
    let called = false;
    const change = (current: unknown) => {
      called = true;
      return current;
    };
    expect(await reasonOf(() => f.service.patch(f.widgets, 'nope', change))).toBe('NotFound');
    expect(called).toBe(false);
  });
});
