/**
 * The storage interface: an etcd-like revisioned key-value log (after k3s kine). Objects are opaque bytes to the store;
 * it keeps only what it needs to order, find and guard writes: the resource they belong to, their name and the
 * store-wide revision of their last write.
 *
 * Every successful write gets the next store-wide revision, strictly increasing, and appends an event to a bounded
 * history that watches replay from. A write that fails leaves the store exactly as it was.
 */

/** `<group>/<plural>` (or `<plural>` for the core group): the collection an object belongs to. */
export type ResourceKey = string;

export interface StoredRecord {
  resource: ResourceKey;
  name: string;
  /** Revision of the write that produced this value. */
  revision: number;
  value: Buffer;
}

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Change {
  revision: number;
  type: ChangeType;
  resource: ResourceKey;
  name: string;
  /** The new value; for DELETED, the last value the object had. */
  value: Buffer;
  /** Revision of the value this write replaced (0 for ADDED). */
  prevRevision: number;
  /** For MODIFIED, the value this write replaced: a watch replaying history needs it to tell whether the object moved
   * into or out of a selection. */
  prevValue?: Buffer;
}

/**
 * Builds the bytes to store once the revision is known, so the object's bytes can carry their own revision
 * (`metadata.resourceVersion`) and a read can serve them unchanged.
 */
export type Encoder = (revision: number) => Buffer;

/** Raised by `create` when the name is taken. */
export class KeyExistsError extends Error {
  constructor(
    readonly resource: ResourceKey,
    readonly key: string,
  ) {
    super(`${resource}/${key} already exists`);
    this.name = 'KeyExistsError';
  }
}

/** Raised by `update`/`delete` when the stored revision is not the expected one, or the object is gone. */
export class RevisionConflictError extends Error {
  constructor(
    readonly resource: ResourceKey,
    readonly key: string,
    readonly expected: number,
    readonly actual: number | undefined,
  ) {
    super(
      actual === undefined
        ? `${resource}/${key} does not exist`
        : `${resource}/${key} is at revision ${actual}, not ${expected}`,
    );
    this.name = 'RevisionConflictError';
  }
}

/** A value of a unique index an object holds (`index` names the model's index). */
export interface UniqueClaim {
  index: string;
  value: string;
}

/**
 * Raised by a write when another object of the resource holds one of its unique values. Only a store shared by several
 * servers (PostgreSQL) claims values in the database; one process's store leaves that to its in-memory indexes.
 */
export class UniqueClaimError extends Error {
  constructor(
    readonly resource: ResourceKey,
    readonly key: string,
    readonly claim: UniqueClaim,
  ) {
    super(`${resource}/${key}: unique index ${claim.index} already holds ${JSON.stringify(claim.value)}`);
    this.name = 'UniqueClaimError';
  }
}

/**
 * What a store tells about writes made elsewhere (by another server on the same database): `revision` when one
 * committed, `secret` when a secret record changed, `reset` when notices may have been missed (the listening
 * connection was lost), so a listener must re-read what it caches.
 */
export type StoreNotice =
  | { type: 'revision'; revision: number }
  | { type: 'secret'; kind: string; name: string }
  | { type: 'reset' };

/**
 * Leadership of one named duty among the servers of a store, with a fencing epoch that grows with every new holder.
 * `held` turns false the moment the holder may have lost it (its connection broke), before anyone else can take it.
 */
export interface Lease {
  /** The duty's name (`controllers`): the row of `leases` whose epoch fences the holder's writes. */
  readonly name: string;
  readonly held: boolean;
  /** The epoch of this holder's term; 0 while not held. */
  readonly epoch: number;
  /** Called with true when this server takes the lease, false when it loses it. Returns the unsubscribe function. */
  onChange(listener: (held: boolean) => void): () => void;
  /** Gives the lease up (at shutdown), so another server takes it at once. */
  release(): Promise<void>;
}

/**
 * Raised by a write made for the leader (one run through `runFenced`, fence.ts) when the lease has moved on: the
 * database holds a newer epoch than the writer's. The write leaves nothing; the writer has lost the lease and stops.
 */
export class FencedError extends Error {
  constructor(
    readonly lease: string,
    readonly epoch: number,
    readonly current: number | undefined,
  ) {
    super(`the ${lease} lease has moved on (epoch ${current ?? 'none'}); a write of epoch ${epoch} is refused`);
    this.name = 'FencedError';
  }
}

/** Raised by `changesSince` when the requested revision is older than the retained history. */
export class CompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`revision ${requested} has been compacted; the oldest retained is ${oldest}`);
    this.name = 'CompactedError';
  }
}

/**
 * Records kept beside the store but outside its history: password hashes, session records, token digests. A write here
 * takes no revision and appends no event, so no watch, list or history scan ever carries one; only a backup
 * (`svc export`, unless --no-secrets) reads them, on purpose. Last writer wins; the records of one `kind` are keyed by
 * `name`.
 */
export interface SecretStore {
  get(kind: string, name: string): Promise<Buffer | undefined>;
  /** Creates or replaces the record. */
  put(kind: string, name: string, value: Buffer): Promise<void>;
  /** Replaces the record only if it exists; false when it does not (a late write must not revive a removed record). */
  replace(kind: string, name: string, value: Buffer): Promise<boolean>;
  /** Removes the record; false when there was none. */
  delete(kind: string, name: string): Promise<boolean>;
  /** Every record of a kind as [name, value], in batches, by name. */
  scan(kind: string, batchSize?: number): AsyncIterable<Array<[string, Buffer]>>;
  /** The kinds that have at least one record, sorted (for a backup, which must not need to know them). */
  kinds(): Promise<string[]>;
}

/** An object `Store.restore` creates: its bytes are encoded once its revision is known, as for `create`. */
export interface RestoredObject {
  resource: ResourceKey;
  name: string;
  encode: Encoder;
}

/** A secret record `Store.restore` writes. */
export interface RestoredSecret {
  kind: string;
  name: string;
  value: Buffer;
}

export interface Store {
  /** `sqlite` or `postgres`, for logs and diagnostics. */
  readonly dialect: string;
  /** When a commit is durable, as the database reports it (`synchronous=normal`, `synchronous_commit=on`), for the log. */
  readonly durability: string;
  /** Storage for secrets, outside the revisioned history (see SecretStore). */
  readonly secrets: SecretStore;
  /** The revision of the latest write (0 for an empty store). */
  currentRevision(): Promise<number>;
  get(resource: ResourceKey, name: string): Promise<StoredRecord | undefined>;
  /** The records that exist among `names`, in the order of `names`. */
  getMany(resource: ResourceKey, names: readonly string[]): Promise<StoredRecord[]>;
  /** Every record of a resource, streamed in batches (used to build indexes at model registration). */
  scan(resource: ResourceKey, batchSize?: number): AsyncIterable<StoredRecord[]>;
  count(resource: ResourceKey): Promise<number>;
  /**
   * The resources that hold at least one object, sorted. Only a backup needs it: the server itself learns its
   * resources from the models it registers, but `svc export` reads the store without starting any plugin.
   */
  resources(): Promise<ResourceKey[]>;
  /**
   * True when other servers may write the same store (PostgreSQL): what this process keeps in memory must then follow
   * `listen` and the history, and `claims` are enforced here rather than only in this process's indexes.
   */
  readonly shared: boolean;
  /** Fails with KeyExistsError when the name is taken, UniqueClaimError when a shared store finds a claim held. */
  create(resource: ResourceKey, name: string, encode: Encoder, claims?: readonly UniqueClaim[]): Promise<StoredRecord>;
  /**
   * Fails with RevisionConflictError unless the stored revision equals `expectedRevision`. `claims` are every unique
   * value the object holds after the write (a shared store releases the others).
   */
  update(
    resource: ResourceKey,
    name: string,
    expectedRevision: number,
    encode: Encoder,
    claims?: readonly UniqueClaim[],
  ): Promise<StoredRecord>;
  /**
   * Removes the record (and its claims); fails with RevisionConflictError unless the stored revision equals
   * `expectedRevision`. Returns the removed value with the revision of the deletion.
   */
  delete(resource: ResourceKey, name: string, expectedRevision: number): Promise<StoredRecord>;
  /**
   * Changes with revision > `afterRevision`, oldest first, at most `limit`. Fails with CompactedError when
   * `afterRevision` is older than the history retains.
   */
  changesSince(afterRevision: number, limit?: number): Promise<Change[]>;
  /** Drops history events so that at most `keep` of the most recent remain. Returns the number dropped. */
  compact(keep: number): Promise<number>;
  /** The oldest revision a watch may resume from (changesSince(oldestResumable) still succeeds). */
  oldestResumableRevision(): Promise<number>;
  /**
   * Raises the revision counter to `revision` (if it is lower) and marks the history up to it compacted. For a store
   * restored from a backup of a store at `revision`: its writes take later revisions only, so a client's
   * resourceVersion from before the restore is never reused, and a watch resuming from one gets CompactedError (a 410:
   * re-list) instead of events that mean something else.
   */
  skipTo(revision: number): Promise<void>;
  /**
   * Fills an empty store from a backup in one transaction: as `skipTo(revision)`, then every object created in order
   * at the revisions that follow, then every secret record. All of it is committed, or (a store that holds an object or
   * a secret record, a name given twice, an encoder that throws, the database failing) none of it.
   */
  restore(revision: number, objects: readonly RestoredObject[], secrets: readonly RestoredSecret[]): Promise<void>;
  /**
   * Claims the unique values of objects stored before claims were kept (a shared store; others ignore it). Values
   * already claimed are left as they are.
   */
  backfillClaims(
    resource: ResourceKey,
    index: string,
    holders: ReadonlyArray<readonly [value: string, name: string]>,
  ): Promise<void>;
  /** Hears writes made by other servers (a shared store); one that only this process writes never calls. */
  listen(listener: (notice: StoreNotice) => void): () => void;
  /** The lease of a duty that must run on one server at a time; a store only this process opens always holds it. */
  lease(name: string): Lease;
  /**
   * Waits for the named lock among the servers of the store and resolves with its release (servers booting at once
   * take turns). A store only this process opens grants it at once.
   */
  lock(name: string): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
