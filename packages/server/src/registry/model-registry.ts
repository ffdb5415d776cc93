import { type ModelRef, notFound } from '@svc/plugin-api';
import { ModelIndex } from '../index/model-index.js';
import type { NormalizedModel } from '../objects/model-definition.js';
import type { Owner } from '../objects/owner.js';
import { CompactedError, RevisionConflictError, type Store } from '../store/types.js';
import { Progress } from '../util/progress.js';
import { Turns } from '../util/turns.js';
import { decodeObject } from './codec.js';
import { type IndexSnapshots, type SnapshotSource, snapshotFingerprint } from './index-snapshots.js';

/** Where the registry reports long index builds (pino's logger fits). */
export interface ProgressLog {
  info(fields: Record<string, unknown>, message: string): void;
  debug(fields: Record<string, unknown>, message: string): void;
}

/** A model being served: its normalized definition, its in-memory indexes and who registered it. */
export interface ServedModel {
  readonly model: NormalizedModel;
  readonly index: ModelIndex;
  /** `core` for the service's own models, otherwise `plugin:<name>`. */
  readonly owner: Owner;
}

export type ModelListener = (event: 'registered' | 'unregistered', served: ServedModel) => void;

const routeKey = (group: string, version: string, plural: string) => `${group}/${version}/${plural}`;
const kindKey = (apiVersion: string, kind: string) => `${apiVersion}|${kind}`;

/**
 * Every model svc serves, found by route (`group/version/plural`) or by apiVersion and kind. Registering a model builds
 * its indexes from the stored objects before the model is visible, so no request ever sees a half-built index.
 */
export class ModelRegistry {
  private readonly byRoute = new Map<string, ServedModel>();
  private readonly byKind = new Map<string, ServedModel>();
  private readonly listeners = new Set<ModelListener>();
  /** Resources whose indexes are being built from the store, each with the number of its build (see loadingOf). */
  private readonly loading = new Map<string, number>();
  private loads = 0;

  /** What each served model's index snapshot must match (index-snapshots.ts). */
  private readonly fingerprints = new WeakMap<ServedModel, string>();

  constructor(
    private readonly store: Store,
    private readonly log?: ProgressLog,
    /** Where indexes are read back from at registration, when a usable snapshot is there (none: always scanned). */
    private readonly snapshots?: IndexSnapshots,
  ) {}

  /**
   * Serves `model`. `code` is the digest of the code its index functions run in (a plugin's folder): a snapshot of its
   * indexes is read back only if written under the same.
   */
  async register(model: NormalizedModel, owner: Owner, code?: string): Promise<ServedModel> {
    const existing = this.byKind.get(kindKey(model.apiVersion, model.kind)) ?? this.byRoute.get(this.routeOf(model));
    if (existing) {
      throw new Error(
        `model ${model.kind} (${model.apiVersion}, plural ${model.plural}) is already registered by ${existing.owner}`,
      );
    }
    this.loading.set(model.resource, ++this.loads);
    try {
      return await this.load(model, owner, code);
    } finally {
      this.loading.delete(model.resource);
    }
  }

  /**
   * While a model of this resource builds its indexes, the number of that build: a change another server commits
   * meanwhile may be missing from the scan and is not yet anyone's to apply, so the change feed keeps it until the
   * model is registered (and drops it if that build failed and another began).
   */
  loadingOf(resource: string): number | undefined {
    return this.loading.get(resource);
  }

  /** The number of the build that registered the model of this resource, while it is served. */
  loadOf(served: ServedModel): number | undefined {
    return this.loadNumbers.get(served);
  }

  private readonly loadNumbers = new WeakMap<ServedModel, number>();

  private async load(model: NormalizedModel, owner: Owner, code: string | undefined): Promise<ServedModel> {
    const fingerprint = snapshotFingerprint(model, code);
    const index = (await this.fromSnapshot(model, fingerprint)) ?? (await this.fromStore(model));
    // A store shared by several servers enforces unique values itself; objects stored before it did get theirs now.
    if (this.store.shared) {
      for (const { index: name, holders } of index.uniqueHolders())
        await this.store.backfillClaims(model.resource, name, holders);
    }
    const served: ServedModel = { model, index, owner };
    this.fingerprints.set(served, fingerprint);
    this.loadNumbers.set(served, this.loading.get(model.resource)!);
    this.byRoute.set(this.routeOf(model), served);
    this.byKind.set(kindKey(model.apiVersion, model.kind), served);
    for (const listener of this.listeners) listener('registered', served);
    return served;
  }

  /** Builds the model's indexes from every stored object. */
  private async fromStore(model: NormalizedModel): Promise<ModelIndex> {
    const label = `${model.apiVersion} ${model.kind}`;
    const index = new ModelIndex(model.indexes, label);
    // One bulk load rather than an apply per object (index-loader.ts). Each batch is decoded as it arrives, and only
    // the objects' index records are kept: not their bytes, nor the objects.
    const loader = index.loader();
    const progress = new Progress(({ done, elapsedMs }) =>
      this.log?.info({ model: label, objects: done, elapsedMs }, `building indexes of ${label}: ${done} objects read`),
    );
    // Requests are answered between batches: a plugin starting with a million objects must not stall the server.
    const turns = new Turns();
    for await (const batch of this.store.scan(model.resource)) {
      for (const record of batch) loader.add(decodeObject(record.value));
      progress.add(batch.length);
      await turns.take();
    }
    loader.finish();
    const { done, elapsedMs, long } = progress.finish();
    // Quick builds (most) only at debug: one line per model at every boot would drown the lines that matter.
    this.log?.[long ? 'info' : 'debug'](
      { model: label, objects: done, elapsedMs },
      `built indexes of ${label}: ${done} objects in ${elapsedMs} ms`,
    );
    return index;
  }

  /**
   * The model's indexes as its snapshot left them, brought up to date from the history since; undefined when there is
   * no usable snapshot (or the history it needs was compacted meanwhile), so the caller builds them from the store.
   */
  private async fromSnapshot(model: NormalizedModel, fingerprint: string): Promise<ModelIndex | undefined> {
    if (!this.snapshots) return undefined;
    const label = `${model.apiVersion} ${model.kind}`;
    const startedAt = Date.now();
    const index = new ModelIndex(model.indexes, label);
    const loader = index.loader();
    const turns = new Turns();
    const oldest = await this.store.oldestResumableRevision();
    let read: Awaited<ReturnType<IndexSnapshots['read']>>;
    try {
      read = await this.snapshots.read(model.resource, fingerprint, oldest, async (chunk) => {
        loader.addSnapshotChunk(chunk);
        await turns.take();
      });
      // Filing the records can refuse them too (two holders of a unique value): the snapshot is no use then either.
      if (read.used) loader.finish();
    } catch (error) {
      this.log?.info({ model: label, err: error }, `not using the index snapshot of ${label}: it is unreadable`);
      await this.snapshots.discard(model.resource);
      return undefined;
    }
    if (!read.used) {
      if (read.why) this.log?.info({ model: label }, `not using the index snapshot of ${label}: ${read.why}`);
      return undefined;
    }
    let replayed: number;
    try {
      replayed = await this.replaySince(index, model.resource, read.revision, turns);
    } catch (error) {
      if (!(error instanceof CompactedError)) throw error;
      this.log?.info({ model: label }, `the history since the index snapshot of ${label} was compacted meanwhile`);
      return undefined;
    }
    const elapsedMs = Date.now() - startedAt;
    this.log?.[read.records >= this.snapshots.minObjects ? 'info' : 'debug'](
      { model: label, objects: index.size, snapshotRevision: read.revision, replayed, elapsedMs },
      `read indexes of ${label} from the snapshot at revision ${read.revision} and ${replayed} later changes: ` +
        `${index.size} objects in ${elapsedMs} ms`,
    );
    return index;
  }

  /** Applies to `index` every change of `resource` after `revision` the history holds; returns how many. */
  private async replaySince(index: ModelIndex, resource: string, revision: number, turns: Turns): Promise<number> {
    let replayed = 0;
    for (let after = revision; ; ) {
      const changes = await this.store.changesSince(after, 1000);
      if (changes.length === 0) return replayed;
      for (const change of changes) {
        if (change.resource !== resource) continue;
        const object = decodeObject(change.value);
        if (change.type === 'DELETED') index.apply(object, undefined);
        else index.apply(undefined, object);
        replayed++;
      }
      after = changes[changes.length - 1]!.revision;
      await turns.take();
    }
  }

  /** Every served model as an index snapshot can be written from (index-snapshots.ts). */
  snapshotSources(): SnapshotSource[] {
    return this.all().map((served) => ({
      resource: served.model.resource,
      fingerprint: this.fingerprints.get(served)!,
      size: served.index.size,
      chunks: (perChunk) => served.index.snapshotChunks(perChunk),
    }));
  }

  unregister(served: ServedModel): void {
    if (this.byKind.get(kindKey(served.model.apiVersion, served.model.kind)) !== served) return;
    this.byRoute.delete(this.routeOf(served.model));
    this.byKind.delete(kindKey(served.model.apiVersion, served.model.kind));
    for (const listener of this.listeners) listener('unregistered', served);
  }

  /** The model served at `/apis/<group>/<version>/<plural>` (group '' for `/api/<version>/<plural>`). */
  findByRoute(group: string, version: string, plural: string): ServedModel | undefined {
    return this.byRoute.get(routeKey(group, version, plural));
  }

  findByKind(apiVersion: string, kind: string): ServedModel | undefined {
    return this.byKind.get(kindKey(apiVersion, kind));
  }

  resolve(ref: ModelRef): ServedModel {
    const apiVersion = 'apiVersion' in ref ? ref.apiVersion : ref.group ? `${ref.group}/${ref.version}` : ref.version;
    const served = this.findByKind(apiVersion, ref.kind);
    if (!served) throw notFound(`no model ${ref.kind} is served in ${apiVersion}`);
    return served;
  }

  /** The model whose objects are stored under `resource`, if one is served. */
  findByResource(resource: string): ServedModel | undefined {
    for (const served of this.byKind.values()) if (served.model.resource === resource) return served;
    return undefined;
  }

  all(): ServedModel[] {
    return [...this.byKind.values()];
  }

  /**
   * Removes every stored object of `resource`, finalizers and all, while no model serves it (a plugin's, at an
   * uninstall that deletes its data): nothing here indexes or watches those objects, and no controller is left to
   * release their finalizers. Answers how many went, or undefined (and removes nothing) when a model serves the
   * resource or is being registered for it. An object changed meanwhile (another replica still serving it) is left for
   * that replica's next write to show; a few passes catch what was added during one.
   */
  async purgeUnserved(resource: string): Promise<number | undefined> {
    let removed = 0;
    for (let pass = 0; pass < 3; pass++) {
      let seen = 0;
      for await (const batch of this.store.scan(resource)) {
        for (const record of batch) {
          if (this.findByResource(resource) || this.loading.has(resource)) return undefined;
          seen++;
          try {
            await this.store.delete(resource, record.name, record.revision);
            removed++;
          } catch (error) {
            if (!(error instanceof RevisionConflictError)) throw error;
          }
        }
      }
      if (seen === 0) break;
    }
    return removed;
  }

  onChange(listener: ModelListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private routeOf(model: NormalizedModel): string {
    return routeKey(model.group, model.version, model.plural);
  }
}
