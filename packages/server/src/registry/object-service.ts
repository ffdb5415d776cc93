import { randomUUID } from 'node:crypto';
import { alreadyExists, conflict, type ExtensionObject, type FieldError, invalid, notFound } from '@svc/plugin-api';
import type { IndexQuery } from '../index/model-index.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../objects/json-limits.js';
import { generateName, withFinalizers } from '../objects/metadata.js';
import { checkObjectShape } from '../objects/object-shape.js';
import {
  type Change,
  type ChangeType,
  KeyExistsError,
  RevisionConflictError,
  type Store,
  type StoredRecord,
  type UniqueClaim,
  UniqueClaimError,
} from '../store/types.js';
import { KeyedQueue } from '../util/keyed-queue.js';
import { Progress, type ProgressPoint } from '../util/progress.js';
import { type Actor, Admission, SYSTEM } from './admission.js';
import { canonicalize, decodeObject, deepCopy, encodeObject } from './codec.js';
import type { ServedModel } from './model-registry.js';

export interface ListPage {
  items: Buffer[];
  total: number;
  /** Store revision the page was read at (the list's `metadata.resourceVersion`). */
  revision: number;
}

/** The result of a write: the object as stored, and its bytes as served. */
export interface Written {
  object: ExtensionObject;
  bytes: Buffer;
  /** True when the write removed the object from the store (a delete whose finalizers were empty). */
  removed: boolean;
}

/**
 * A write that has committed, announced synchronously right after the store accepted it and the index took it, so a
 * listener that reads the index in the same tick sees a state consistent with `revision`.
 */
export interface CommittedChange {
  type: ChangeType;
  revision: number;
  served: ServedModel;
  /** The object as stored; for DELETED its last stored state, with `resourceVersion` set to the deletion's revision. */
  object: ExtensionObject;
  /** The object before the write (MODIFIED and DELETED). */
  prevObject?: ExtensionObject;
  /** `object` serialized. */
  bytes: Buffer;
}

export type CommitListener = (change: CommittedChange) => void;

export interface WriteOptions {
  /** `status` writes only `status`; otherwise the main resource. */
  subresource?: 'status';
  /** False for objects a plugin declares in `extensions/` (the seed: unprefixed label keys are not for plugins). */
  allowUnprefixedLabels?: boolean;
  /** Who asks; admission checks read it. In-process callers that pass none act as the service itself. */
  actor?: Actor;
  /**
   * A dry run (`dryRun=All`): validated, admitted (checks only) and answered like the real write, with unique indexes
   * checked, but nothing is stored, indexed or announced.
   */
  dryRun?: boolean;
  /** A delete's preconditions (Kubernetes' DeleteOptions): the object must still be this one, at this revision. */
  preconditions?: { uid?: string; resourceVersion?: string };
  /**
   * A delete's: annotations written with the deletionTimestamp, in the same write (the choices of a model's delete
   * parameters). An object already being deleted keeps the choices of the delete that began it.
   */
  annotations?: Record<string, string>;
  /** Set by `apply`: the object's `metadata.managedFields` are the apply's, not the stored ones. */
  applied?: boolean;
  /**
   * A create by svc of an object whose first status it already knows: stored with that status (a model with a status
   * subresource otherwise drops it on create), one write instead of a create and a status update.
   */
  withStatus?: boolean;
}

/**
 * The one generic registry behind every model (after k8s' generic registry store): models differ only by data — their
 * schema, indexes and flags.
 *
 * Concurrency: writes of one object are serialized; writes of different objects run concurrently, so the store can
 * commit them together. A write checks unique indexes and applies its change to the index in one synchronous step
 * (reserving its values against any other writer), then waits for the store; if the store refuses, the index change is
 * undone. So a failed write leaves store and indexes as they were, and two writers can never both take a unique value.
 */
export class ObjectService {
  private readonly writes = new KeyedQueue();
  private readonly listeners = new Set<CommitListener>();
  private announcedUpTo = 0;
  /**
   * Revisions this process wrote and announced, until the change feed passes them (a shared store only): the feed
   * must not apply or announce them a second time.
   */
  private readonly localRevisions = new Map<number, string>();
  /** The newest revision this process wrote of each object, until the feed passes it (see applyRemote). */
  private readonly newestLocal = new Map<string, number>();
  /** Per-model checks run inside every write, after validation and before the store. */
  readonly admission = new Admission();

  constructor(
    private readonly store: Store,
    private readonly onListenerError: (error: unknown) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Subscribes to committed writes; returns the unsubscribe function. */
  onCommitted(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
        this.announce(deletedChange(served, object, change.revision));
        return;
      }
      served.index.apply(undefined, object);
      this.announce({ type: change.type, revision: change.revision, served, object, prevObject, bytes: change.value });
    });
  }

  /** True (once) when this process wrote `revision` itself: the change feed then has nothing to apply. */
  takeLocal(revision: number): boolean {
    const key = this.localRevisions.get(revision);
    if (key === undefined) return false;
    this.localRevisions.delete(revision);
    if (this.newestLocal.get(key) === revision) this.newestLocal.delete(key);
    return true;
  }

  /** The unique values to claim in the store: only a shared store enforces them (one process's index does here). */
  private claimsOf(served: ServedModel, object: ExtensionObject): UniqueClaim[] | undefined {
    return this.store.shared ? served.index.uniqueClaims(object) : undefined;
  }

  /** The claims after an update, or undefined when its unique values are those it held (most updates: no work). */
  private changedClaims(served: ServedModel, prev: ExtensionObject, next: ExtensionObject): UniqueClaim[] | undefined {
    const claims = this.claimsOf(served, next);
    if (!claims) return undefined;
    const before = served.index.uniqueClaims(prev);
    const same =
      before.length === claims.length &&
      before.every((c, i) => c.index === claims[i]!.index && c.value === claims[i]!.value);
    return same ? undefined : claims;
  }

  private wrote(served: ServedModel, name: string, revision: number): void {
    if (!this.store.shared) return;
    const key = objectKey(served, name);
    this.localRevisions.set(revision, key);
    if (revision > (this.newestLocal.get(key) ?? 0)) this.newestLocal.set(key, revision);
  }

  /**
   * The newest revision this process has announced (written, or applied from another replica). Every revision up to
   * it has committed: writers commit in revision order.
   */
  get latestRevision(): number {
    return this.announcedUpTo;
  }

  /**
   * True while some write is under way. A write changes the index before it commits and takes the change back if the
   * commit fails, so only while this is false do the indexes hold exactly what was committed.
   */
  get writing(): boolean {
    return !this.writes.idle;
  }

  /** Listeners run after the commit: one that throws must not undo or fail a write that already happened. */
  private announce(change: CommittedChange): void {
    if (change.revision > this.announcedUpTo) this.announcedUpTo = change.revision;
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  async getBytes(served: ServedModel, name: string): Promise<Buffer> {
    const record = await this.store.get(served.model.resource, name);
    if (!record) throw notFoundObject(served, name);
    return record.value;
  }

  async get(served: ServedModel, name: string): Promise<ExtensionObject> {
    return decodeObject(await this.getBytes(served, name));
  }

  async list(served: ServedModel, query: IndexQuery): Promise<ListPage> {
    const { names, total } = served.index.query(query);
    const revision = await this.store.currentRevision();
    const records = await this.store.getMany(served.model.resource, names);
    return { items: records.map((r) => r.value), total, revision };
  }

  create(served: ServedModel, body: unknown, options: WriteOptions = {}): Promise<Written> {
    const object = this.validated(served, body, 'create', options);
    const meta = object.metadata;
    if (!meta.name) meta.name = this.freshName(served, meta.generateName ?? '');
    return this.writes.run(objectKey(served, meta.name), () => this.insert(served, object, options));
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
    const applying = { ...options, applied: true };
    return this.writes.run(objectKey(served, name), async () => {
      const record = await this.store.get(served.model.resource, name);
      if (!record) {
        options.beforeCreate?.();
        const object = this.validated(served, merge(undefined).object, 'create', applying);
        return { ...(await this.insert(served, object, applying)), created: true };
      }
      const current = { record, object: decodeObject(record.value) };
      const { object: merged, changed } = merge(deepCopy(current.object));
      if (!changed) return { object: current.object, bytes: record.value, removed: false, created: false };
      const object = this.validated(served, merged, 'update', applying);
      checkLock(served, current.object, object);
      return { ...(await this.replace(served, current, object, applying)), created: false };
    });
  }

  /** Creates `object` (validated, named); runs in the object's write queue. */
  private async insert(served: ServedModel, object: ExtensionObject, options: WriteOptions): Promise<Written> {
    const meta = object.metadata;
    if (served.index.has(meta.name)) throw nameTaken(served, meta.name);
    meta.uid = randomUUID();
    meta.creationTimestamp = this.now().toISOString();
    meta.version = 0;
    delete meta.deletionTimestamp;
    const modelFinalizers = served.model.finalizers;
    if (modelFinalizers.length > 0) meta.finalizers = withFinalizers(meta.finalizers, modelFinalizers);
    // Field managers are recorded by server-side apply only.
    if (!options.applied) delete meta.managedFields;
    if (served.model.statusSubresource && !options.withStatus) delete object.status;
    const stored = canonicalize(object);
    const held: Array<() => void> = [];
    const admitting = this.admission.run({
      operation: 'create',
      served,
      object: stored,
      actor: options.actor ?? SYSTEM,
      dryRun: options.dryRun,
      hold: (release) => void held.push(release),
    });
    try {
      if (admitting) await admitting;
      if (options.dryRun) return dryRunAnswer(served, stored, false);
      return await this.storeNew(served, stored);
    } finally {
      for (const release of held) release();
    }
  }

  /** Stores an admitted new object, keeping the index's reservation in step with the outcome. */
  private async storeNew(served: ServedModel, stored: ExtensionObject): Promise<Written> {
    const name = stored.metadata.name;
    reserve(served, undefined, stored);
    const record = await this.store
      .create(served.model.resource, name, (revision) => encodeObject(stored, revision), this.claimsOf(served, stored))
      .catch((error: unknown) => {
        served.index.apply(stored, undefined);
        throw error instanceof KeyExistsError ? nameTaken(served, name) : claimRefused(served, error);
      });
    this.wrote(served, name, record.revision);
    this.announce({ type: 'ADDED', revision: record.revision, served, object: stored, bytes: record.value });
    return { object: stored, bytes: record.value, removed: false };
  }

  update(served: ServedModel, name: string, body: unknown, options: WriteOptions = {}): Promise<Written> {
    const object = this.validated(served, body, 'update', options);
    if (object.metadata.name !== name) {
      throw invalid(`metadata.name "${object.metadata.name}" does not match the name in the path "${name}"`, [
        { path: '/metadata/name', message: `must equal "${name}"` },
      ]);
    }
    if (object.metadata.version === undefined && object.metadata.resourceVersion === undefined) {
      throw conflict(
        'metadata.version (or metadata.resourceVersion) is required for an update: get the object, change it, and send it back',
      );
    }
    return this.writes.run(objectKey(served, name), async () => {
      const current = await this.read(served, name);
      checkLock(served, current.object, object);
      return this.replace(served, current, object, options);
    });
  }

  /** Applies `change` to the current object and writes the result as an update. */
  patch(
    served: ServedModel,
    name: string,
    change: (current: ExtensionObject) => unknown,
    options: WriteOptions = {},
  ): Promise<Written> {
    return this.writes.run(objectKey(served, name), async () => {
      // A patch applies to whatever is current: when another server (a replica) wrote between the read and the store's
      // check, it is applied again to the new state (k8s' GuaranteedUpdate), unless the patch itself pins a version.
      for (let attempt = 1; ; attempt++) {
        const current = await this.read(served, name);
        const patched = change(deepCopy(current.object));
        const object = this.validated(served, patched, 'update', options);
        if (object.metadata.name !== name) {
          throw invalid('a patch cannot change metadata.name', [
            { path: '/metadata/name', message: `must stay "${name}"` },
          ]);
        }
        checkLock(served, current.object, object);
        try {
          return await this.replace(served, current, object, options);
        } catch (error) {
          if (!(error as { lostRace?: boolean }).lostRace || attempt >= 5) throw error;
        }
      }
    });
  }

  /** Declares deletion; removes the object at once when it has no finalizers. */
  delete(served: ServedModel, name: string, options: WriteOptions = {}): Promise<Written> {
    return this.writes.run(objectKey(served, name), async () => {
      const current = await this.read(served, name);
      checkPreconditions(served, current.object, options.preconditions);
      if (current.object.metadata.deletionTimestamp) {
        return { object: current.object, bytes: current.record.value, removed: false };
      }
      const next = deepCopy(current.object);
      next.metadata.deletionTimestamp = this.now().toISOString();
      if (options.annotations) next.metadata.annotations = { ...next.metadata.annotations, ...options.annotations };
      return this.replace(served, current, next, options, true);
    });
  }

  /**
   * Deletes every object the query selects; returns how many. `onProgress` hears of long deletions about once a second
   * (with the total), never once per object.
   */
  async deleteCollection(
    served: ServedModel,
    query: Pick<IndexQuery, 'labels' | 'fields'>,
    options: WriteOptions = {},
    onProgress?: (point: ProgressPoint & { total: number }) => void,
  ): Promise<number> {
    const { names } = served.index.query({ ...query, sort: [] });
    // All or nothing where admission can refuse: every deletion is checked before the first one is made.
    if (this.admission.has(served.model.resource)) await this.admitDeletions(served, names, options);
    if (options.dryRun) return names.length;
    let deleted = 0;
    const progress = new Progress((point) => onProgress?.({ ...point, total: names.length }));
    // In slices, so the store can commit many deletions together without holding every promise at once.
    for (let i = 0; i < names.length; i += 256) {
      const results = await Promise.allSettled(
        names.slice(i, i + 256).map((name) => this.delete(served, name, options)),
      );
      for (const result of results) {
        if (result.status === 'fulfilled') deleted++;
        // Removed concurrently by someone else: not ours to count, and not an error.
        else if ((result.reason as { status?: number }).status !== 404) throw result.reason;
      }
      progress.add(results.length);
    }
    return deleted;
  }

  private async admitDeletions(served: ServedModel, names: readonly string[], options: WriteOptions): Promise<void> {
    const deletionTimestamp = this.now().toISOString();
    for (let i = 0; i < names.length; i += 256) {
      const records = await this.store.getMany(served.model.resource, names.slice(i, i + 256));
      for (const record of records) {
        const prev = decodeObject(record.value);
        if (prev.metadata.deletionTimestamp) continue;
        const object = { ...prev, metadata: { ...prev.metadata, deletionTimestamp } };
        const actor = options.actor ?? SYSTEM;
        await this.admission.run({ operation: 'delete', served, object, prevObject: prev, actor, dryRun: true });
      }
    }
  }

  private async read(served: ServedModel, name: string) {
    const record = await this.store.get(served.model.resource, name);
    if (!record) throw notFoundObject(served, name);
    return { record, object: decodeObject(record.value) };
  }

  /** Writes `next` over `current`, keeping server-owned fields; removes the object once deletion is due. */
  private async replace(
    served: ServedModel,
    current: { record: StoredRecord; object: ExtensionObject },
    next: ExtensionObject,
    options: WriteOptions,
    deleting = false,
  ): Promise<Written> {
    const prev = current.object;
    const meta = next.metadata;
    meta.uid = prev.metadata.uid;
    meta.creationTimestamp = prev.metadata.creationTimestamp;
    meta.deletionTimestamp = deleting ? meta.deletionTimestamp : prev.metadata.deletionTimestamp;
    meta.version = (prev.metadata.version ?? 0) + 1;
    delete meta.generateName;
    // Field managers are server-side apply's: any other write keeps them as stored, whatever its body says.
    if (!options.applied) {
      if (prev.metadata.managedFields === undefined) delete meta.managedFields;
      else meta.managedFields = prev.metadata.managedFields;
    }
    if (options.subresource === 'status') {
      // The status subresource writes only status: everything else stays as stored.
      const status = next.status;
      next = deepCopy(prev);
      next.metadata.version = meta.version;
      if (status === undefined) delete next.status;
      else next.status = status;
    } else if (served.model.statusSubresource) {
      if (prev.status === undefined) delete next.status;
      else next.status = prev.status;
    }
    const stored = canonicalize(next);
    const removing = Boolean(stored.metadata.deletionTimestamp && !stored.metadata.finalizers?.length);
    const held: Array<() => void> = [];
    const admitting = this.admission.run({
      operation: deleting ? 'delete' : 'update',
      served,
      object: stored,
      prevObject: prev,
      subresource: options.subresource,
      actor: options.actor ?? SYSTEM,
      dryRun: options.dryRun,
      hold: (release) => void held.push(release),
    });
    try {
      if (admitting) await admitting;
      if (options.dryRun) {
        stored.metadata.resourceVersion = prev.metadata.resourceVersion;
        return dryRunAnswer(served, stored, removing);
      }
      return await this.storeReplacement(served, current, stored, removing);
    } finally {
      for (const release of held) release();
    }
  }

  /** Stores an admitted replacement (or the removal it amounts to), keeping the index in step with the outcome. */
  private async storeReplacement(
    served: ServedModel,
    current: { record: StoredRecord; object: ExtensionObject },
    stored: ExtensionObject,
    removing: boolean,
  ): Promise<Written> {
    const prev = current.object;
    const resource = served.model.resource;
    const name = prev.metadata.name;
    reserve(served, prev, removing ? undefined : stored);
    let record: StoredRecord;
    try {
      record = removing
        ? await this.store.delete(resource, name, current.record.revision)
        : await this.store.update(
            resource,
            name,
            current.record.revision,
            (rev) => encodeObject(stored, rev),
            this.changedClaims(served, prev, stored),
          );
    } catch (error) {
      served.index.apply(removing ? undefined : stored, prev);
      if (error instanceof RevisionConflictError) {
        const lost = conflict(`${served.model.kind} "${name}" was changed by another writer; get it again and retry`);
        throw Object.assign(lost, { lostRace: true });
      }
      throw claimRefused(served, error);
    }
    this.wrote(served, name, record.revision);
    if (!removing) {
      this.announce({
        type: 'MODIFIED',
        revision: record.revision,
        served,
        object: stored,
        prevObject: prev,
        bytes: record.value,
      });
      return { object: stored, bytes: record.value, removed: false };
    }
    stored.metadata.resourceVersion = String(record.revision);
    this.announce(deletedChange(served, prev, record.revision));
    return { object: stored, bytes: Buffer.from(JSON.stringify(stored)), removed: true };
  }

  private validated(served: ServedModel, body: unknown, mode: 'create' | 'update', options: WriteOptions) {
    // Before the schema walk (which recurses): a patch can grow an object past the limit its request body kept.
    if (nestsDeeperThan(body)) {
      throw invalid(`${served.model.kind} nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
    }
    const errors: FieldError[] = checkObjectShape(body, served.model, {
      mode,
      allowUnprefixedLabels: options.allowUnprefixedLabels ?? true,
    });
    if (errors.length > 0) {
      const summary = errors
        .slice(0, 5)
        .map((e) => `${e.path} ${e.message}`)
        .join('; ');
      throw invalid(`${served.model.kind} is invalid: ${summary}${errors.length > 5 ? '; …' : ''}`, errors);
    }
    // The service takes ownership of the body (a request's freshly parsed JSON); in-process callers pass a copy.
    return body as ExtensionObject;
  }

  private freshName(served: ServedModel, prefix: string): string {
    for (let attempt = 0; attempt < 16; attempt++) {
      const name = generateName(prefix);
      if (!served.index.has(name)) return name;
    }
    throw conflict(`could not generate a free name from "${prefix}"; try again`);
  }
}

function objectKey(served: ServedModel, name: string): string {
  return `${served.model.resource}/${name}`;
}

/** What a dry run answers: the object as the write would leave it, its unique values checked, nothing changed. */
function dryRunAnswer(served: ServedModel, object: ExtensionObject, removed: boolean): Written {
  if (!removed) served.index.checkUnique(object);
  return { object, bytes: Buffer.from(JSON.stringify(object)), removed };
}

/** Checks unique indexes and applies the change to the index in one synchronous step (see the class comment). */
function reserve(served: ServedModel, prev: ExtensionObject | undefined, next: ExtensionObject | undefined): void {
  if (next) served.index.checkUnique(next);
  served.index.apply(prev, next);
}

/**
 * The optimistic lock: `metadata.version` (the seed's) and, where a client sends it, `metadata.resourceVersion`
 * (Kubernetes clients'), must match the stored object. A body with only a resourceVersion takes the stored version.
 */
function checkLock(served: ServedModel, current: ExtensionObject, object: ExtensionObject): void {
  const { version, resourceVersion } = object.metadata;
  if (version !== undefined || resourceVersion === undefined) checkVersion(served, current, version);
  if (resourceVersion !== undefined && String(resourceVersion) !== current.metadata.resourceVersion) {
    throw conflict(
      `${served.model.kind} "${current.metadata.name}" is at metadata.resourceVersion ${current.metadata.resourceVersion}, ` +
        `the request carries ${JSON.stringify(resourceVersion)}; get the object again and retry`,
    );
  }
  object.metadata.version = current.metadata.version;
}

function checkPreconditions(
  served: ServedModel,
  current: ExtensionObject,
  wanted: WriteOptions['preconditions'],
): void {
  for (const field of ['uid', 'resourceVersion'] as const) {
    const value = wanted?.[field];
    if (value !== undefined && value !== current.metadata[field]) {
      throw conflict(
        `${served.model.kind} "${current.metadata.name}" does not meet the precondition: metadata.${field} is ` +
          `${JSON.stringify(current.metadata[field])}, the request wants ${JSON.stringify(value)}`,
      );
    }
  }
}

function checkVersion(served: ServedModel, current: ExtensionObject, version: unknown): void {
  if (version !== current.metadata.version) {
    throw conflict(
      `${served.model.kind} "${current.metadata.name}" is at metadata.version ${current.metadata.version}, ` +
        `the request carries ${JSON.stringify(version)}; get the object again and retry`,
    );
  }
}

/** The announcement of a removal: the object's last stored state, carrying the deletion's revision. */
function deletedChange(served: ServedModel, last: ExtensionObject, revision: number): CommittedChange {
  const object = { ...last, metadata: { ...last.metadata, resourceVersion: String(revision) } };
  return { type: 'DELETED', revision, served, object, prevObject: last, bytes: Buffer.from(JSON.stringify(object)) };
}

/** A unique value another server's object claimed first: the same 409 as one this process's index refuses. */
function claimRefused(served: ServedModel, error: unknown): unknown {
  if (!(error instanceof UniqueClaimError)) return error;
  const { index, value } = error.claim;
  return conflict(
    `${served.model.kind} "${error.key}": unique index "${index}" already holds value "${value}" (for another object)`,
  );
}

function notFoundObject(served: ServedModel, name: string) {
  return notFound(`${served.model.kind} "${name}" not found in ${served.model.apiVersion}`);
}

function nameTaken(served: ServedModel, name: string) {
  return alreadyExists(`${served.model.kind} "${name}" already exists`);
}
