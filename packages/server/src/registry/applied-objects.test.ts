/**
 * Reads of what this server applied (AppliedObjects), on replicas of one real PostgreSQL store: two object services on
 * one schema, the first never told of the second's writes (no change feed runs), so what it holds is stale on purpose.
 */
import { type ExtensionObject, isApiError, type ModelDefinition } from '@svc/plugin-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import { openPostgresStore } from '../store/postgres.js';
import { closeAndDrop, freshSchema, PG_TEST_URL } from '../store/postgres-fixtures.suite.js';
import type { Store } from '../store/types.js';
import { AppliedObjects } from './applied-objects.js';
import type { CommittedChange } from './commit-bus.js';
import { ModelRegistry, type ServedModel } from './model-registry.js';
import { ObjectService } from './object-service.js';
import { patchFunction } from './patch-documents.js';

const gadgetModel: ModelDefinition = {
  group: 'example.com',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
};

describe('AppliedObjects', () => {
  const served = { model: { resource: 'example.com/gadgets' } } as ServedModel;
  const change = (type: CommittedChange['type'], name: string, revision: number): CommittedChange => ({
    type,
    revision,
    served,
    object: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name, resourceVersion: String(revision) } },
    bytes: Buffer.from(`{"r":${revision}}`),
  });
  type Step = ['apply', CommittedChange['type'], number] | ['expect', number];

  it.each<[string, Step[], number | undefined]>([
    [
      'holds the newest applied state',
      [
        ['apply', 'ADDED', 3],
        ['apply', 'MODIFIED', 5],
      ],
      5,
    ],
    [
      'never goes back to an older state',
      [
        ['apply', 'MODIFIED', 5],
        ['apply', 'MODIFIED', 4],
      ],
      5,
    ],
    [
      'forgets a removed object',
      [
        ['apply', 'ADDED', 3],
        ['apply', 'DELETED', 6],
      ],
      undefined,
    ],
    [
      'serves nothing below a change known to be coming',
      [
        ['apply', 'ADDED', 3],
        ['expect', 7],
      ],
      undefined,
    ],
    [
      'serves an older announcement of the object no more than the state before it',
      [
        ['apply', 'ADDED', 3],
        ['expect', 7],
        ['apply', 'MODIFIED', 5],
      ],
      undefined,
    ],
    [
      'serves again once the expected change arrives',
      [
        ['apply', 'ADDED', 3],
        ['expect', 7],
        ['apply', 'MODIFIED', 7],
      ],
      7,
    ],
    [
      'ignores an expectation it already holds',
      [
        ['apply', 'MODIFIED', 8],
        ['expect', 7],
      ],
      8,
    ],
  ])('%s', (_, steps, served) => {
    const objects = new AppliedObjects();
    for (const step of steps) {
      if (step[0] === 'apply') objects.apply(change(step[1], 'g1', step[2]));
      else objects.expect('example.com/gadgets', 'g1', step[1]);
    }
    expect(objects.get('example.com/gadgets', 'g1')?.revision).toBe(served);
  });

  it('keeps the bytes it was given, keyed by resource and name', () => {
    const objects = new AppliedObjects();
    objects.apply(change('ADDED', 'g1', 3));
    expect(objects.get('example.com/gadgets', 'g1')?.value.toString()).toBe('{"r":3}');
    expect(objects.get('example.com/gadgets', 'g2')).toBeUndefined();
    expect(objects.get('example.com/widgets', 'g1')).toBeUndefined();
  });
});

describe('object service reads and writes on replicas, with a stale applied state', () => {
  const schema = freshSchema('svc_applied');
  const stores: Store[] = [];
  let one: { service: ObjectService; gadgets: ServedModel };
  let two: { service: ObjectService; gadgets: ServedModel };

  async function replica(id: string) {
    const store = await openPostgresStore({ connectionString: PG_TEST_URL, schema, replicaId: `${id}-${schema}` });
    stores.push(store);
    const registry = new ModelRegistry(store);
    const gadgets = await registry.register(normalizeModelDefinition(gadgetModel, { kind: 'system' }), 'core');
    return { service: new ObjectService(store), gadgets };
  }
  const gadget = (name: string, size: number): ExtensionObject =>
    ({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name }, spec: { size } }) as ExtensionObject;
  const sizeOf = (object: unknown) => (object as { spec?: { size?: number } } | undefined)?.spec?.size;

  beforeAll(async () => {
    one = await replica('one');
    two = await replica('two');
  });
  afterAll(() => closeAndDrop(schema, stores));

  /** Created on replica one (which holds it at its create), then changed on replica two to size 2. */
  async function changedElsewhere(name: string) {
    await one.service.create(one.gadgets, gadget(name, 1));
    const current = await two.service.get(two.gadgets, name);
    const { object } = await two.service.update(two.gadgets, name, { ...current, spec: { size: 2 } });
    return object;
  }

  it('reads the applied state only when asked, and the store otherwise', async () => {
    await changedElsewhere('g-read');
    expect(sizeOf(await one.service.find(one.gadgets, 'g-read', { applied: true }))).toBe(1);
    expect(sizeOf(await one.service.find(one.gadgets, 'g-read'))).toBe(2);
    expect(sizeOf(await one.service.get(one.gadgets, 'g-read'))).toBe(2);
  });

  it('an update carrying the newest resourceVersion succeeds though the applied state is older', async () => {
    const newest = await changedElsewhere('g-update');
    const { object } = await one.service.update(one.gadgets, 'g-update', { ...newest, spec: { size: 3 } });
    expect(sizeOf(object)).toBe(3);
    expect(Number(object.metadata.resourceVersion)).toBeGreaterThan(Number(newest.metadata.resourceVersion));
    expect(sizeOf(await two.service.get(two.gadgets, 'g-update'))).toBe(3);
  });

  it('an update carrying the stale resourceVersion is refused with 409', async () => {
    await changedElsewhere('g-stale');
    const stale = await one.service.find(one.gadgets, 'g-stale', { applied: true });
    const refused = await one.service.update(one.gadgets, 'g-stale', { ...stale!, spec: { size: 9 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isApiError(refused) && refused.status).toBe(409);
    expect(sizeOf(await two.service.get(two.gadgets, 'g-stale'))).toBe(2);
  });

  it('a merge patch applies to the newest state, not the applied one', async () => {
    await changedElsewhere('g-patch');
    const labels = patchFunction('merge', { metadata: { labels: { tier: 'gold' } } });
    const { object } = await one.service.patch(one.gadgets, 'g-patch', labels);
    expect([sizeOf(object), object.metadata.labels?.tier]).toEqual([2, 'gold']);
  });

  it("a model's admission effects act once, on the store's state, never on the applied one", async () => {
    await changedElsewhere('g-effect');
    const seen: unknown[] = [];
    const remove = one.service.admission.addEffect(one.gadgets.model.resource, async (request) => {
      seen.push(sizeOf(request.prevObject));
    });
    try {
      await one.service.patch(one.gadgets, 'g-effect', patchFunction('merge', { spec: { size: 4 } }));
    } finally {
      remove();
    }
    expect(seen).toEqual([2]);
  });

  it('a change the watch hub published ahead of its announcement hides the older applied state', async () => {
    const newest = await changedElsewhere('g-ahead');
    one.service.publishedAhead(one.gadgets, 'g-ahead', Number(newest.metadata.resourceVersion));
    expect(sizeOf(await one.service.find(one.gadgets, 'g-ahead', { applied: true }))).toBe(2);
  });
});
