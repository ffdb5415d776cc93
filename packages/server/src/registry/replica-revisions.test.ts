import type { ExtensionObject } from '@svc/plugin-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Change } from '../store/types.js';
import { KeyedQueue } from '../util/keyed-queue.js';
import { encodeObject } from './codec.js';
import { CommitBus, type CommittedChange } from './commit-bus.js';
import { type Fixture, openFixture, widget } from './object-service-fixtures.suite.js';
import { ReplicaRevisions } from './replica-revisions.js';

let f: Fixture;
let announced: CommittedChange[];
let bus: CommitBus;
beforeEach(async () => {
  f = await openFixture();
  announced = [];
  bus = new CommitBus((error) => {
    throw error;
  });
  bus.subscribe((change) => void announced.push(change));
});
afterEach(() => f.close());

const replicaOf = (shared: boolean) => new ReplicaRevisions(shared, new KeyedQueue(), bus);

/** A change another replica committed: `object` at `revision`. */
function remote(type: Change['type'], object: ExtensionObject, revision: number): Change {
  const value = encodeObject(structuredClone(object), revision);
  return { revision, type, resource: f.widgets.model.resource, name: object.metadata.name, value, prevRevision: 0 };
}

describe('which revisions this process wrote', () => {
  it.each([
    ['a store of its own records none', false, [5], 5, [false]],
    ['a shared store hands each back once', true, [5], 5, [true, false]],
    ['a revision it did not write is not its own', true, [5], 6, [false]],
    ['of several writes of one object, each is its own', true, [5, 7], 5, [true, false]],
  ])('%s', (_, shared, written, asked, answers) => {
    const replica = replicaOf(shared);
    for (const revision of written) replica.wrote(f.widgets, 'w1', revision);
    expect(answers.map(() => replica.takeLocal(asked))).toEqual(answers);
  });
});

describe('a change another replica committed', () => {
  const w1 = { ...widget('w1', { size: 1 }), metadata: { name: 'w1', uid: 'u-1', version: 0 } };

  it('goes into the index and is announced, with the revision it committed at', async () => {
    const replica = replicaOf(true);
    await replica.applyRemote(f.widgets, remote('ADDED', w1, 4));
    expect(f.widgets.index.has('w1')).toBe(true);
    expect(announced.map((c) => [c.type, c.revision, c.object.metadata.resourceVersion])).toEqual([['ADDED', 4, '4']]);
    expect(bus.latestRevision).toBe(4);
  });

  it('takes a removal out of the index, announced with the removal revision', async () => {
    const replica = replicaOf(true);
    await replica.applyRemote(f.widgets, remote('ADDED', w1, 4));
    await replica.applyRemote(f.widgets, remote('DELETED', w1, 6));
    expect(f.widgets.index.has('w1')).toBe(false);
    expect(announced.map((c) => [c.type, c.revision, c.object.metadata.resourceVersion])).toEqual([
      ['ADDED', 4, '4'],
      ['DELETED', 6, '6'],
    ]);
  });

  it('is passed over when this process wrote it itself', async () => {
    const replica = replicaOf(true);
    replica.wrote(f.widgets, 'w1', 4);
    await replica.applyRemote(f.widgets, remote('ADDED', w1, 4));
    expect(f.widgets.index.has('w1')).toBe(false);
    expect(announced).toEqual([]);
  });

  it('is passed over when this process has since written a newer state of the object', async () => {
    const replica = replicaOf(true);
    replica.wrote(f.widgets, 'w1', 9);
    await replica.applyRemote(f.widgets, remote('ADDED', w1, 4));
    expect(announced).toEqual([]);
    // The feed reaches the newer write later and passes it over as this process's own.
    expect(replica.takeLocal(9)).toBe(true);
  });
});
