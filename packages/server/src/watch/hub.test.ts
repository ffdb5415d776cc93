import { describe, expect, it } from 'vitest';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { CommitListener, CommittedChange, ObjectService } from '../registry/object-service.js';
import type { Change, Store } from '../store/types.js';
import { WatchHub } from './hub.js';
import type { Selection } from './selection.js';

const served = { model: { resource: 'g/things' } } as unknown as ServedModel;
const object = (name: string, revision: number) => ({
  apiVersion: 'g/v1',
  kind: 'Thing',
  metadata: { name, resourceVersion: String(revision) },
});
const committed = (revision: number): CommittedChange => ({
  type: 'ADDED',
  revision,
  served,
  object: object(`o${revision}`, revision),
  bytes: Buffer.from(JSON.stringify(object(`o${revision}`, revision))),
});
const history = (revision: number, resource: string): Change => ({
  revision,
  type: 'ADDED',
  resource,
  name: `o${revision}`,
  value: Buffer.from(JSON.stringify(object(`o${revision}`, revision))),
  prevRevision: 0,
});

/** A hub over fakes: announcements are made by hand, the store's history is a list. */
async function hubWith(changes: Change[], options: { gapTimeoutMs?: number } = {}) {
  let reads = 0;
  let listener: CommitListener = () => undefined;
  const onCommitted = (l: CommitListener) => {
    listener = l;
    return () => undefined;
  };
  const objects = { onCommitted, publishedAhead: () => undefined } as unknown as ObjectService;
  const store = {
    currentRevision: async () => 0,
    changesSince: async (after: number, limit = 1000) => {
      reads++;
      return changes.filter((c) => c.revision > after).slice(0, limit);
    },
  } as unknown as Store;
  const registry = { all: () => [served] } as unknown as ModelRegistry;
  const hub = await WatchHub.open(
    store,
    objects,
    registry,
    (error) => {
      throw error;
    },
    options,
  );
  const seen: number[] = [];
  hub.subscribe('g/things', (change) => seen.push(change.revision));
  return { hub, seen, announce: (revision: number) => listener(committed(revision)), reads: () => reads };
}

describe('the watch hub', () => {
  it('publishes the writes of one batch in revision order, whatever order they are announced in', async () => {
    const { hub, seen, announce } = await hubWith([]);
    await Promise.resolve().then(() => [3, 1, 2].forEach(announce));
    await hub.reached(3);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('waits across a gap for a late announcement, and publishes each revision once', async () => {
    const { hub, seen, announce } = await hubWith([history(1, 'g/things'), history(2, 'g/things')]);
    announce(2);
    await new Promise((r) => process.nextTick(r));
    expect(seen).toEqual([]);
    announce(1);
    await hub.reached(2);
    expect(seen).toEqual([1, 2]);
  });

  it('fills a gap from the history: a model change is published from there, another resource is skipped', async () => {
    const { hub, seen, announce } = await hubWith([
      history(1, 'g/things'),
      history(2, 'internal/sessions'),
      history(3, 'g/things'),
    ]);
    announce(3);
    await hub.reached(3);
    expect(seen).toEqual([1, 3]);
    announce(1);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([1, 3]);
  });

  it('gives up a revision the history never holds after the gap timeout, polling rather than spinning', async () => {
    // Revisions 1 and 2 were taken by transactions that rolled back: only 3 exists.
    const { hub, seen, announce, reads } = await hubWith([], { gapTimeoutMs: 200 });
    announce(3);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([]);
    await hub.reached(3);
    expect(seen).toEqual([3]);
    // Polled every 10 ms or so for 200 ms: tens of reads, where a spin made tens of thousands.
    expect(reads()).toBeLessThan(60);
  });

  it('resolves reached() for a revision no model announces', async () => {
    const { hub } = await hubWith([history(1, 'internal/sessions')]);
    await hub.reached(1);
    expect(hub.lastRevision).toBe(1);
  });

  it('hands the listeners of a selection only the changes that concern it, and the others every change', async () => {
    const { hub, announce } = await hubWith([]);
    // Objects o2 and o4 are in the selection; o1 and o3 are not.
    const inSelection = (name: string) => name === 'o2' || name === 'o4';
    let tests = 0;
    const selection: Selection = {
      all: false,
      key: 'even',
      labels: [],
      fields: [],
      matches: (o) => {
        tests++;
        return inSelection(o.metadata.name);
      },
    };
    const first: number[] = [];
    const second: number[] = [];
    const unselected: number[] = [];
    const stopFirst = hub.subscribe('g/things', (change) => first.push(change.revision), selection);
    hub.subscribe('g/things', (change) => second.push(change.revision), selection);
    hub.subscribe('g/things', (change) => unselected.push(change.revision), { ...selection, all: true, key: 'all' });
    for (const revision of [1, 2, 3]) announce(revision);
    await hub.reached(3);
    expect([first, second]).toEqual([[2], [2]]);
    // One test per change for the whole group (the unselected listener's selection is `all`: never tested).
    expect(tests).toBe(3);
    stopFirst();
    announce(4);
    await hub.reached(4);
    expect([first, second, unselected]).toEqual([[2], [2, 4], [1, 2, 3, 4]]);
  });
});
