import type { ExtensionObject } from '@svc/plugin-api';
import type { Change } from '../store/types.js';
import type { KeyedQueue } from '../util/keyed-queue.js';
import { decodeObject } from './codec.js';
import { type CommitBus, deletedChange } from './commit-bus.js';
import type { ServedModel } from './model-registry.js';

/** The key of an object's write queue and of its bookkeeping here. */
export function objectKey(served: ServedModel, name: string): string {
  return `${served.model.resource}/${name}`;
}

/**
 * The replica bookkeeping of a shared store: which revisions this process wrote itself, so the change feed
 * (`change-feed.ts`) does not apply or announce them a second time, and the application of those it did not write.
 * On a store of its own (SQLite) nothing is recorded: no feed follows it.
 */
export class ReplicaRevisions {
  /** Revisions this process wrote and announced, until the change feed passes them. */
  private readonly localRevisions = new Map<number, string>();
  /** The newest revision this process wrote of each object, until the feed passes it (see applyRemote). */
  private readonly newestLocal = new Map<string, number>();

  constructor(
    private readonly shared: boolean,
    private readonly writes: KeyedQueue,
    private readonly bus: CommitBus,
  ) {}

  /** Records a revision this process committed (and announces itself). */
  wrote(served: ServedModel, name: string, revision: number): void {
    if (!this.shared) return;
    const key = objectKey(served, name);
    this.localRevisions.set(revision, key);
    if (revision > (this.newestLocal.get(key) ?? 0)) this.newestLocal.set(key, revision);
  }

  /** True (once) when this process wrote `revision` itself: the change feed then has nothing to apply. */
  takeLocal(revision: number): boolean {
    const key = this.localRevisions.get(revision);
    if (key === undefined) return false;
    this.localRevisions.delete(revision);
    if (this.newestLocal.get(key) === revision) this.newestLocal.delete(key);
    return true;
  }

  /** Passes every revision up to `revision` this process wrote itself (a re-list covered them). */
  passLocalUpTo(revision: number): void {
    for (const written of [...this.localRevisions.keys()]) if (written <= revision) this.takeLocal(written);
  }

  /**
   * Applies a change another server committed (the change feed hands them over in revision order): to the model's
   * index, then announced like a local write. It waits in the object's write queue, so a local write of the same object
   * in flight finishes (or undoes its index change) first, and a revision this process wrote itself is passed over.
   */
  applyRemote(served: ServedModel, change: Change): Promise<void> {
    const key = objectKey(served, change.name);
    return this.writes.run(key, async () => {
      if (this.takeLocal(change.revision)) return;
      // A local write of this object that read the store after this change committed, and so is newer, may have run
      // before the feed got here: its state is in the index already, and this older one must not replace it.
      if ((this.newestLocal.get(key) ?? 0) > change.revision) return;
      const object = decodeObject(change.value);
      const prevObject = change.prevValue ? decodeObject(change.prevValue) : undefined;
      if (change.type === 'DELETED') {
        served.index.apply(object, undefined);
        this.bus.announce(deletedChange(served, object, change.revision));
        return;
      }
      served.index.apply(undefined, object);
      this.bus.announce({
        type: change.type,
        revision: change.revision,
        served,
        object,
        prevObject,
        bytes: change.value,
      });
    });
  }

  /**
   * Brings a model's index to the stored state `listed` (a re-list after this replica fell behind the compacted
   * history, change-feed.ts): each stored object is applied and announced as MODIFIED (ADDED when the index did not
   * hold it), and each name the index holds that is no longer stored is removed and announced as DELETED, so caches
   * and reconcilers hear what the lost history held. Announced at `revision`, the store's revision before the list.
   */
  async applyListed(served: ServedModel, listed: ReadonlyMap<string, Buffer>, revision: number): Promise<void> {
    const gone = served.index.names().filter((name) => !listed.has(name));
    const work: Promise<void>[] = [];
    for (const [name, bytes] of listed) {
      work.push(
        this.writes.run(objectKey(served, name), async () => {
          const object = decodeObject(bytes);
          const type = served.index.has(name) ? 'MODIFIED' : 'ADDED';
          served.index.apply(undefined, object);
          this.bus.announce({ type, revision, served, object, bytes });
        }),
      );
    }
    for (const name of gone) {
      work.push(
        this.writes.run(objectKey(served, name), async () => {
          if (!served.index.has(name)) return;
          // Its last state went with the history: the announcement names it.
          const { apiVersion, kind } = served.model;
          const last = { apiVersion, kind, metadata: { name } } as ExtensionObject;
          served.index.apply(last, undefined);
          this.bus.announce(deletedChange(served, last, revision));
        }),
      );
    }
    await Promise.all(work);
  }
}
