/**
 * Index snapshots over a real store (SQLite in memory): a registry reads a model's indexes back from the snapshot the
 * last shutdown wrote, replays the history since, and answers exactly as a build from the stored objects would; a
 * snapshot it cannot trust is not used, and is removed.
 */
import { createHash } from 'node:crypto';
import { INDEX_SNAPSHOTS_RECORDS, type ModelDefinition } from '@svc/plugin-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IndexQuery } from '../index/model-index.js';
import { parseFieldSelector, parseLabelSelector, parseSort } from '../index/selectors.js';
import { type NormalizedModel, normalizeModelDefinition } from '../objects/model-definition.js';
import { openSqliteStore } from '../store/sqlite.js';
import type { Store } from '../store/types.js';
import { IndexSnapshots } from './index-snapshots.js';
import { ModelRegistry } from './model-registry.js';
import { ObjectService } from './object-service.js';
import { saveIndexSnapshots } from './save-snapshots.js';

const gadgets: ModelDefinition = {
  group: 'example.com',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  indexes: [
    { name: 'spec.color' },
    { name: 'spec.sku', unique: true },
    { name: 'tags', indexFunc: (o) => (o as { spec?: { tags?: string[] } }).spec?.tags ?? [] },
  ],
};
const model = (definition: ModelDefinition = gadgets) => normalizeModelDefinition(definition, { kind: 'system' });
const RESOURCE = 'example.com/gadgets';

// Sorted by name where nothing else is asked: without a sort a list is newest first (creationTimestamp), and these
// objects are created within a millisecond or two of each other.
const query = (labels = '', fields = '', sort = 'metadata.name'): IndexQuery => ({
  labels: parseLabelSelector(labels),
  fields: parseFieldSelector(fields),
  sort: parseSort(sort),
});
/** The questions every index is asked, and what a correct one answers after `changeAfterSnapshot`. */
const QUESTIONS: Array<[IndexQuery, string[]]> = [
  [query(), ['g-1', 'g-2', 'g-4', 'g-5', 'g-6', 'g-7', 'g-8', 'g-9', 'g-10', 'g-11']],
  [query('', 'spec.color=red'), ['g-1', 'g-2', 'g-4', 'g-7', 'g-10']],
  [query('', 'spec.color='), ['g-5', 'g-11']],
  [query('team=a', '', 'spec.sku,desc'), ['g-9', 'g-6', 'g-2']],
  [query('!team'), ['g-5', 'g-11']],
  [query('', 'tags=b'), ['g-2', 'g-5', 'g-8', 'g-11']],
  [query('team in (a,b)', 'spec.color!=red', 'metadata.name,desc'), ['g-9', 'g-6']],
];

interface Logged {
  message: string;
  fields: Record<string, unknown>;
}

let store: Store;
let logged: Logged[];
const log = {
  info: (fields: Record<string, unknown>, message: string) => void logged.push({ fields, message }),
  debug: (fields: Record<string, unknown>, message: string) => void logged.push({ fields, message }),
};
const snapshots = () => new IndexSnapshots(store.secrets, { minObjects: 1, recordsPerChunk: 3 });

/**
 * Ten gadgets g-1 … g-10: team b, c, a in turn (g-5 none), red for 1, 4, 7 and 10, blue for the others (g-5 none),
 * skus sku-01 … sku-10, tags a and b for 2, 5 and 8, a for the others.
 */
async function writeGadgets(objects: ObjectService, registry: ModelRegistry) {
  const served = registry.all()[0]!;
  for (let n = 1; n <= 10; n++) {
    const labels = n === 5 ? {} : { team: ['a', 'b', 'c'][n % 3]! };
    const spec: Record<string, unknown> = {
      sku: `sku-${String(n).padStart(2, '0')}`,
      tags: n % 3 === 2 ? ['a', 'b'] : ['a'],
    };
    if (n !== 5) spec.color = n % 3 === 1 ? 'red' : 'blue';
    await objects.create(served, {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: `g-${n}`, labels },
      spec,
    });
  }
}

/** After the snapshot: one object added, one changed (color, label and tags), one deleted. */
async function changeAfterSnapshot(objects: ObjectService, registry: ModelRegistry) {
  const served = registry.all()[0]!;
  await objects.create(served, {
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { name: 'g-11' },
    spec: { sku: 'sku-11', tags: ['b'] },
  });
  const g2 = await objects.get(served, 'g-2');
  await objects.update(served, 'g-2', {
    ...g2,
    metadata: { ...g2.metadata, labels: { team: 'a' } },
    spec: { ...g2.spec, color: 'red' },
  });
  await objects.delete(served, 'g-3');
}

function answers(registry: ModelRegistry): string[][] {
  const { index } = registry.all()[0]!;
  return QUESTIONS.map(([q]) => index.query(q).names);
}

/** A registry that wrote a snapshot of the ten gadgets at shutdown, and then three changes made afterwards. */
async function snapshotThenChange(): Promise<number> {
  const registry = new ModelRegistry(store, log, snapshots());
  await registry.register(model(), 'core');
  const objects = new ObjectService(store);
  await writeGadgets(objects, registry);
  const revision = await store.currentRevision();
  await saveIndexSnapshots({
    registry,
    objects,
    snapshots: snapshots(),
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    appliedRevision: () => store.currentRevision(),
  });
  await changeAfterSnapshot(objects, registry);
  return revision;
}

async function registerAgain(definition?: NormalizedModel, code?: string): Promise<ModelRegistry> {
  const registry = new ModelRegistry(store, log, snapshots());
  await registry.register(definition ?? model(), 'core', code);
  return registry;
}

beforeEach(() => {
  store = openSqliteStore({ path: ':memory:' });
  logged = [];
});
afterEach(() => store.close());

describe('index snapshots', () => {
  it('reads the indexes back, replays the changes since, and answers as a build from the objects does', async () => {
    const revision = await snapshotThenChange();
    const header = JSON.parse((await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, RESOURCE))!.toString());
    expect(header).toMatchObject({ revision, chunks: 4, records: 10 });

    logged = [];
    const fromSnapshot = await registerAgain();
    expect(logged.map((l) => l.message)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^read indexes of example.com/v1 Gadget from the snapshot at revision ${revision} and 3 later changes: 10 objects in \\d+ ms$`,
        ),
      ),
    ]);
    expect(answers(fromSnapshot)).toEqual(QUESTIONS.map(([, expected]) => expected));
    // The unique index holds after the replay as it does after a build: g-2 kept its sku, g-3's is free again.
    const served = fromSnapshot.all()[0]!;
    expect(() =>
      served.index.checkUnique({
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'x' },
        spec: { sku: 'sku-02' },
      }),
    ).toThrow(/sku-02/);
    expect(() =>
      served.index.checkUnique({
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'x' },
        spec: { sku: 'sku-03' },
      }),
    ).not.toThrow();

    const fromObjects = new ModelRegistry(store);
    await fromObjects.register(model(), 'core');
    expect(answers(fromObjects)).toEqual(answers(fromSnapshot));
  });

  it.each<[string, (revision: number) => Promise<{ definition?: NormalizedModel; code?: string }>, RegExp]>([
    [
      'an index was added',
      async () => ({ definition: model({ ...gadgets, indexes: [...gadgets.indexes!, { name: 'spec.size' }] }) }),
      /the model, its indexes or its code changed since it was written/,
    ],
    [
      "an indexFunc's source changed",
      async () => ({
        definition: model({
          ...gadgets,
          indexes: [
            gadgets.indexes![0]!,
            gadgets.indexes![1]!,
            // The same values, written otherwise: the source is what is compared.
            { name: 'tags', indexFunc: (o) => [...((o as { spec?: { tags?: string[] } }).spec?.tags ?? [])] },
          ],
        }),
      }),
      /the model, its indexes or its code changed/,
    ],
    [
      "the plugin's code changed",
      async () => ({ code: 'another build' }),
      /the model, its indexes or its code changed/,
    ],
    [
      'the history since it was compacted',
      async () => {
        await store.compact(0);
        return {};
      },
      /the history since its revision \d+ was compacted/,
    ],
    [
      'a chunk was altered',
      async () => {
        const header = JSON.parse((await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, RESOURCE))!.toString());
        const name = `${RESOURCE}#${header.token}#1`;
        const chunk = (await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, name))!.toString();
        await store.secrets.put(INDEX_SNAPSHOTS_RECORDS, name, Buffer.from(chunk.replace('red', 'tan')));
        return {};
      },
      /its chunks do not match its digest/,
    ],
    [
      'a chunk is missing',
      async () => {
        const header = JSON.parse((await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, RESOURCE))!.toString());
        await store.secrets.delete(INDEX_SNAPSHOTS_RECORDS, `${RESOURCE}#${header.token}#2`);
        return {};
      },
      /its chunk 2 is missing/,
    ],
    [
      'its records are not records, though its digest matches',
      async () => {
        await rewriteChunk(0, () => '[["g-1", null, "only one value"]]');
        return {};
      },
      /it is unreadable/,
    ],
    [
      'two of its records hold one unique value, though its digest matches',
      async () => {
        // A record: name key, labels, then creationTimestamp, deletionTimestamp, spec.color, spec.sku, tags.
        await rewriteChunk(0, (json) => {
          const records = JSON.parse(json);
          records[1][5] = records[0][5];
          return JSON.stringify(records);
        });
        return {};
      },
      /it is unreadable/,
    ],
  ])('builds from the objects, and removes the snapshot, when %s', async (_, spoil, why) => {
    const revision = await snapshotThenChange();
    const { definition, code } = await spoil(revision);
    logged = [];
    const registry = await registerAgain(definition, code);
    expect(logged[0]?.message).toMatch(
      new RegExp(`^not using the index snapshot of example.com/v1 Gadget: ${why.source}`),
    );
    expect(logged.some((l) => l.message.startsWith('read indexes'))).toBe(false);
    expect(answers(registry)).toEqual(QUESTIONS.map(([, expected]) => expected));
    expect(await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, RESOURCE)).toBeUndefined();
    expect((await all(store, INDEX_SNAPSHOTS_RECORDS)).length).toBe(0);
  });

  it('writes nothing while writes keep going, and says so', async () => {
    const registry = new ModelRegistry(store, log, snapshots());
    await registry.register(model(), 'core');
    const objects = new ObjectService(store);
    await writeGadgets(objects, registry);
    const warned: string[] = [];
    await saveIndexSnapshots({
      registry,
      objects: { writing: true } as ObjectService,
      snapshots: snapshots(),
      logger: { info: () => undefined, warn: (message: string) => void warned.push(message), error: () => undefined },
      appliedRevision: () => store.currentRevision(),
      waitMs: 30,
    } as never);
    expect(warned).toEqual([expect.stringMatching(/^index snapshots not written: writes were still under way/)]);
    expect(await store.secrets.kinds()).not.toContain(INDEX_SNAPSHOTS_RECORDS);
  });

  it('replaces the snapshot at the next stop, and removes that of a model grown too small for one', async () => {
    await snapshotThenChange();
    const first = JSON.parse((await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, RESOURCE))!.toString());
    const registry = await registerAgain();
    const objects = new ObjectService(store);
    const notes = await registry.register(
      model({ group: 'example.com', version: 'v1', kind: 'Note', plural: 'notes' }),
      'core',
    );
    for (let n = 1; n <= 12; n++) {
      await objects.create(notes, { apiVersion: 'example.com/v1', kind: 'Note', metadata: { name: `n-${n}` } });
    }
    const save = (minObjects: number) =>
      saveIndexSnapshots({
        registry,
        objects,
        snapshots: new IndexSnapshots(store.secrets, { minObjects, recordsPerChunk: 4 }),
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
        appliedRevision: () => store.currentRevision(),
      });
    await save(1);
    const second = JSON.parse((await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, RESOURCE))!.toString());
    expect(second).toMatchObject({ revision: await store.currentRevision(), chunks: 3, records: 10 });
    expect(second.token).not.toBe(first.token);
    // The first snapshot's chunks are gone: only the new header and its three chunks are left of the gadgets'.
    const gadgetRecords = async () =>
      (await all(store, INDEX_SNAPSHOTS_RECORDS)).filter((name) => name.startsWith(RESOURCE));
    expect((await gadgetRecords()).sort()).toEqual(
      [RESOURCE, ...[0, 1, 2].map((i) => `${RESOURCE}#${second.token}#${i}`)].sort(),
    );

    // Twelve notes still get one at a minimum of eleven; ten gadgets lose theirs.
    await save(11);
    expect(await gadgetRecords()).toEqual([]);
    const notesHeader = JSON.parse((await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, 'example.com/notes'))!.toString());
    expect(notesHeader).toMatchObject({ chunks: 3, records: 12 });
  });
});

/** Rewrites chunk `i` of the snapshot, and its header's digest to match, as a writer with a bug would leave them. */
async function rewriteChunk(i: number, rewrite: (json: string) => string): Promise<void> {
  const header = JSON.parse((await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, RESOURCE))!.toString());
  const name = (n: number) => `${RESOURCE}#${header.token}#${n}`;
  const chunk = (await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, name(i)))!.toString();
  await store.secrets.put(INDEX_SNAPSHOTS_RECORDS, name(i), Buffer.from(rewrite(chunk)));
  const hash = createHash('sha256');
  for (let n = 0; n < header.chunks; n++) hash.update((await store.secrets.get(INDEX_SNAPSHOTS_RECORDS, name(n)))!);
  header.sha256 = hash.digest('hex');
  await store.secrets.put(INDEX_SNAPSHOTS_RECORDS, RESOURCE, Buffer.from(JSON.stringify(header)));
}

async function all(store: Store, kind: string): Promise<string[]> {
  const names: string[] = [];
  for await (const batch of store.secrets.scan(kind)) for (const [name] of batch) names.push(name);
  return names;
}
