import type { AnyExtensionObject, ExtensionObject } from '@svc/plugin-api';
import type { IndexQuery } from '../index/model-index.js';
import type { Change, Store } from '../store/types.js';
import { KeyedQueue } from '../util/keyed-queue.js';
import type { ProgressPoint } from '../util/progress.js';
import { Admission } from './admission.js';
import { AppliedObjects } from './applied-objects.js';
import { decodeObject } from './codec.js';
import { CommitBus, type CommitListener } from './commit-bus.js';
import { CommitStep } from './commit-step.js';
import { deleteCollection } from './delete-collection.js';
import type { ServedModel } from './model-registry.js';
import { ObjectWrites } from './object-writes.js';
import { ReplicaRevisions } from './replica-revisions.js';
import { objectNotFound } from './write-errors.js';
import type { ListPage, WriteOptions, Written } from './write-types.js';

export type { CommitListener, CommittedChange } from './commit-bus.js';
export type { ListPage, WriteOptions, Written } from './write-types.js';

export interface ReadOptions {
  /**
   * Read the object as this server last applied it, when it holds it (AppliedObjects): on replicas it may lag another
   * replica's write. For reconcilers, which are level-based and write with the revision they read.
   */
  applied?: boolean;
}

/**
 * The one generic registry behind every model (after k8s' generic registry store): models differ only by data — their
 * schema, indexes and flags. This is its entry; the parts are the write pipeline (`object-writes.ts`, committing
 * through `commit-step.ts`), the change events (`commit-bus.ts`) and the replica bookkeeping
 * (`replica-revisions.ts`).
 *
 * Concurrency: writes of one object are serialized; writes of different objects run concurrently, so the store can
 * commit them together. A write checks unique indexes and applies its change to the index in one synchronous step
 * (reserving its values against any other writer), then waits for the store; if the store refuses, the index change is
 * undone. So a failed write leaves store and indexes as they were, and two writers can never both take a unique value.
 */
export class ObjectService {
  /** Per-model checks run inside every write, after validation and before the store. */
  readonly admission = new Admission();
  /** Each object's writes, one at a time; the change feed's applications wait in the same queue. */
  private readonly queue = new KeyedQueue();
  private readonly bus: CommitBus;
  private readonly replica: ReplicaRevisions;
  private readonly writes: ObjectWrites;
  /** On a store shared by replicas only: one this process alone writes caches every read already (cached-store.ts). */
  private readonly applied?: AppliedObjects;
  /** See followedUpTo. */
  private followed = 0;

  constructor(
    private readonly store: Store,
    onListenerError: (error: unknown) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.bus = new CommitBus(onListenerError);
    if (store.shared) {
      const applied = new AppliedObjects();
      this.bus.subscribe((change) => applied.apply(change));
      this.applied = applied;
    }
    this.replica = new ReplicaRevisions(store.shared, this.queue, this.bus);
    const commit = new CommitStep(store, this.bus, this.replica);
    this.writes = new ObjectWrites(store, this.queue, this.admission, commit, now, this.applied);
  }

  /** Subscribes to committed writes; returns the unsubscribe function. */
  onCommitted(listener: CommitListener): () => void {
    return this.bus.subscribe(listener);
  }

  /** Brings a model's index to a re-listed stored state (see ReplicaRevisions.applyListed). */
  async applyListed(served: ServedModel, listed: ReadonlyMap<string, Buffer>, revision: number): Promise<void> {
    return this.replica.applyListed(served, listed, revision);
  }

  /** Passes the revisions up to `revision` this process wrote itself (a re-list covered them). */
  passLocalUpTo(revision: number): void {
    this.replica.passLocalUpTo(revision);
  }

  /** Applies a change another server committed (see ReplicaRevisions.applyRemote). */
  applyRemote(served: ServedModel, change: Change): Promise<void> {
    return this.replica.applyRemote(served, change);
  }

  /** True (once) when this process wrote `revision` itself: the change feed then has nothing to apply. */
  takeLocal(revision: number): boolean {
    return this.replica.takeLocal(revision);
  }

  /**
   * The newest revision this process has announced (written, or applied from another replica). Every revision up to
   * it has committed: writers commit in revision order.
   */
  get latestRevision(): number {
    return this.bus.latestRevision;
  }

  /**
   * The revision up to which a read of the object with ReadOptions.applied, starting now, sees its changes; a
   * reconciler passes over the changes its reconcile has seen. Without AppliedObjects every read is the store's, which
   * holds every change announced so far. With it, a read may find the state AppliedObjects holds, which has every
   * change the change feed has passed, and every change of this object announced so far.
   */
  readRevision(served: ServedModel, name: string): number {
    if (!this.applied) return this.bus.latestRevision;
    // Changes of one object are announced in revision order; of different objects, up to the feed's point only.
    return Math.max(this.followed, this.applied.get(served.model.resource, name)?.revision ?? 0);
  }

  /** Told by the watch hub when it publishes a change from the history, ahead of its announcement here. */
  publishedAhead(served: ServedModel, name: string, revision: number): void {
    this.applied?.expect(served.model.resource, name, revision);
  }

  /** Told by the change feed: every change up to `revision` has been announced here (readRevision's floor). */
  followedUpTo(revision: number): void {
    if (revision > this.followed) this.followed = revision;
  }

  /**
   * True while some write is under way. A write changes the index before it commits and takes the change back if the
   * commit fails, so only while this is false do the indexes hold exactly what was committed.
   */
  get writing(): boolean {
    return !this.queue.idle;
  }

  async getBytes(served: ServedModel, name: string, options: ReadOptions = {}): Promise<Buffer> {
    const record = await this.read(served, name, options);
    if (!record) throw objectNotFound(served.model, name);
    return record.value;
  }

  /**
   * The object, typed as the caller's model says it is (the schema validated it when it was written); a 404 when
   * there is none.
   */
  async get<T extends AnyExtensionObject = ExtensionObject>(
    served: ServedModel,
    name: string,
    options: ReadOptions = {},
  ): Promise<T> {
    return decodeObject(await this.getBytes(served, name, options)) as T;
  }

  /** Like get, but undefined when the object does not exist. */
  async find<T extends AnyExtensionObject = ExtensionObject>(
    served: ServedModel,
    name: string,
    options: ReadOptions = {},
  ): Promise<T | undefined> {
    const record = await this.read(served, name, options);
    return record ? (decodeObject(record.value) as T) : undefined;
  }

  private async read(served: ServedModel, name: string, options: ReadOptions) {
    const { resource } = served.model;
    return (options.applied && this.applied?.get(resource, name)) || (await this.store.get(resource, name));
  }

  async list(served: ServedModel, query: IndexQuery): Promise<ListPage> {
    const { names, total } = served.index.query(query);
    const revision = await this.store.currentRevision();
    const records = await this.store.getMany(served.model.resource, names);
    return { items: records.map((r) => r.value), total, revision };
  }

  /** Refuses an invalid body by throwing at once, before any promise. */
  create(served: ServedModel, body: unknown, options: WriteOptions = {}): Promise<Written> {
    return this.writes.create(served, body, options);
  }

  /**
   * Server-side apply (docs/api.md "Server-side apply"): `merge` makes the object from the current one (undefined when
   * there is none, and then the object is created, after `options.beforeCreate`). A merge that changes nothing is
   * answered with the stored object, and nothing is written.
   */
  apply(
    served: ServedModel,
    name: string,
    merge: (current: ExtensionObject | undefined) => { object: ExtensionObject; changed: boolean },
    options: WriteOptions & { beforeCreate?: () => void } = {},
  ): Promise<Written & { created: boolean }> {
    return this.writes.apply(served, name, merge, options);
  }

  /** Refuses an invalid body, or one without the version it was read at, by throwing at once, before any promise. */
  update(served: ServedModel, name: string, body: unknown, options: WriteOptions = {}): Promise<Written> {
    return this.writes.update(served, name, body, options);
  }

  /**
   * Applies `change` to the current object and writes the result as an update, again to the newer state when another
   * replica wrote the object meanwhile.
   */
  patch<T extends AnyExtensionObject = ExtensionObject>(
    served: ServedModel,
    name: string,
    change: (current: T) => unknown,
    options: WriteOptions = {},
  ): Promise<Written> {
    // The stored object is the model's: `T` is the caller's word for it, as in get<T>.
    return this.writes.patch(served, name, change as (current: ExtensionObject) => unknown, options);
  }

  /** Declares deletion; removes the object at once when it has no finalizers. */
  delete(served: ServedModel, name: string, options: WriteOptions = {}): Promise<Written> {
    return this.writes.delete(served, name, options);
  }

  /**
   * Deletes every object the query selects; returns how many. `onProgress` hears of long deletions about once a second
   * (with the total), never once per object.
   */
  deleteCollection(
    served: ServedModel,
    query: Pick<IndexQuery, 'labels' | 'fields'>,
    options: WriteOptions = {},
    onProgress?: (point: ProgressPoint & { total: number }) => void,
  ): Promise<number> {
    const deleteOne = (name: string) => this.writes.delete(served, name, options);
    const deps = { store: this.store, admission: this.admission, now: this.now, deleteOne };
    return deleteCollection(deps, served, query, options, onProgress);
  }
}
