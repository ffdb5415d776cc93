import { randomUUID } from 'node:crypto';
import { conflict, type ExtensionObject } from '@svc/plugin-api';
import { generateName } from '../objects/metadata.js';
import type { Store } from '../store/types.js';
import type { KeyedQueue } from '../util/keyed-queue.js';
import { type Admission, SYSTEM } from './admission.js';
import type { AppliedObjects } from './applied-objects.js';
import { canonicalize, decodeObject, deepCopy } from './codec.js';
import { type CommitStep, dryRunAnswer } from './commit-step.js';
import type { ServedModel } from './model-registry.js';
import { objectKey } from './replica-revisions.js';
import { stampNew, stampReplacement } from './server-fields.js';
import { checkLock, checkPatchedName, checkPreconditions, checkUpdateBody, validated } from './write-checks.js';
import { LostRace, nameTaken, objectNotFound } from './write-errors.js';
import type { CurrentObject, WriteOptions, Written } from './write-types.js';

/** How often a patch applies itself again after losing a race to another replica's write of the object. */
const PATCH_ATTEMPTS = 5;

/**
 * The write pipeline (after k8s' generic registry store): validate, take the server's fields, check the optimistic
 * lock, admit (checks, then effects), then commit (`commit-step.ts`) or, for a dry run, answer. Writes of one object
 * wait for each other in its queue; writes of different objects run concurrently, so the store can commit them
 * together.
 */
export class ObjectWrites {
  constructor(
    private readonly store: Store,
    private readonly queue: KeyedQueue,
    private readonly admission: Admission,
    private readonly commit: CommitStep,
    private readonly now: () => Date,
    private readonly applied?: AppliedObjects,
  ) {}

  /** Refuses an invalid body by throwing at once, before any promise. */
  create(served: ServedModel, body: unknown, options: WriteOptions): Promise<Written> {
    const object = validated(served.model, body, 'create', options);
    const meta = object.metadata;
    if (!meta.name) meta.name = freshName(served, meta.generateName ?? '');
    return this.queue.run(objectKey(served, meta.name), () => this.insert(served, object, options));
  }

  /** Server-side apply; see ObjectService.apply. */
  apply(
    served: ServedModel,
    name: string,
    merge: (current: ExtensionObject | undefined) => { object: ExtensionObject; changed: boolean },
    options: WriteOptions & { beforeCreate?: () => void },
  ): Promise<Written & { created: boolean }> {
    const applying = { ...options, applied: true };
    return this.queue.run(objectKey(served, name), async () => {
      const record = await this.store.get(served.model.resource, name);
      if (!record) {
        options.beforeCreate?.();
        const object = validated(served.model, merge(undefined).object, 'create', applying);
        return { ...(await this.insert(served, object, applying)), created: true };
      }
      const current = { record, object: decodeObject(record.value) };
      const { object: merged, changed } = merge(deepCopy(current.object));
      if (!changed) return { object: current.object, bytes: record.value, removed: false, created: false };
      const object = validated(served.model, merged, 'update', applying);
      checkLock(served.model.kind, current.object, object);
      return { ...(await this.replace(served, current, object, applying)), created: false };
    });
  }

  /** Refuses an invalid body by throwing at once, before any promise. */
  update(served: ServedModel, name: string, body: unknown, options: WriteOptions): Promise<Written> {
    const object = validated(served.model, body, 'update', options);
    checkUpdateBody(object, name);
    return this.queue.run(objectKey(served, name), () =>
      this.onCurrent(served, name, (current, last) => {
        // The checks and the stamping change the object in place: an attempt that may be followed by another takes a copy.
        const next = last ? object : deepCopy(object);
        checkLock(served.model.kind, current.object, next);
        return this.replace(served, current, next, options);
      }),
    );
  }

  patch(
    served: ServedModel,
    name: string,
    change: (current: ExtensionObject) => unknown,
    options: WriteOptions,
  ): Promise<Written> {
    return this.queue.run(objectKey(served, name), async () => {
      // A patch applies to whatever is current: when another server (a replica) wrote between the read and the store's
      // check, it is applied again to the new state (k8s' GuaranteedUpdate), unless the patch itself pins a version.
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.onCurrent(served, name, (current) => {
            const object = validated(served.model, change(deepCopy(current.object)), 'update', options);
            checkPatchedName(object, name);
            checkLock(served.model.kind, current.object, object);
            return this.replace(served, current, object, options);
          });
        } catch (error) {
          if (!(error instanceof LostRace) || attempt >= PATCH_ATTEMPTS) throw error;
        }
      }
    });
  }

  /** Declares deletion; removes the object at once when it has no finalizers. */
  delete(served: ServedModel, name: string, options: WriteOptions): Promise<Written> {
    return this.queue.run(objectKey(served, name), async () => {
      const current = await this.read(served, name);
      checkPreconditions(served.model.kind, current.object, options.preconditions);
      if (current.object.metadata.deletionTimestamp) {
        return { object: current.object, bytes: current.record.value, removed: false };
      }
      const next = deepCopy(current.object);
      next.metadata.deletionTimestamp = this.now().toISOString();
      if (options.annotations) next.metadata.annotations = { ...next.metadata.annotations, ...options.annotations };
      return this.replace(served, current, next, options, true);
    });
  }

  /** Creates `object` (validated, named); runs in the object's write queue. */
  private async insert(served: ServedModel, object: ExtensionObject, options: WriteOptions): Promise<Written> {
    if (served.index.has(object.metadata.name)) throw nameTaken(served.model, object.metadata.name);
    const stored = canonicalize(stampNew(served.model, object, { uid: randomUUID(), now: this.now() }, options));
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
      return await this.commit.create(served, stored);
    } finally {
      for (const release of held) release();
    }
  }

  /** Writes `next` over `current`, keeping server-owned fields; removes the object once deletion is due. */
  private async replace(
    served: ServedModel,
    current: CurrentObject,
    next: ExtensionObject,
    options: WriteOptions,
    deleting = false,
  ): Promise<Written> {
    const prev = current.object;
    const stored = canonicalize(stampReplacement(served.model, prev, next, { ...options, deleting }));
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
      return await this.commit.replace(served, current, stored, removing);
    } finally {
      for (const release of held) release();
    }
  }

  /**
   * Runs `write` on the object as this server last applied it (AppliedObjects, on replicas) when it holds it, and on
   * the store's state when that attempt fails in any way: the store checks the revision read in the commit's own
   * transaction, so an attempt on a stale state cannot commit, and only the store's state decides a refusal. Not for a
   * model with admission effects (role and user cascades): they act before the commit, on the state the write read.
   */
  private async onCurrent(
    served: ServedModel,
    name: string,
    write: (current: CurrentObject, last: boolean) => Promise<Written>,
  ): Promise<Written> {
    const { resource } = served.model;
    const record = this.admission.hasEffects(resource) ? undefined : this.applied?.get(resource, name);
    if (record) {
      try {
        return await write({ record, object: decodeObject(record.value) }, false);
      } catch {
        // Stale, or refused on its merits: the store's state answers.
      }
    }
    return write(await this.read(served, name), true);
  }

  private async read(served: ServedModel, name: string): Promise<CurrentObject> {
    const record = await this.store.get(served.model.resource, name);
    if (!record) throw objectNotFound(served.model, name);
    return { record, object: decodeObject(record.value) };
  }
}

function freshName(served: ServedModel, prefix: string): string {
  for (let attempt = 0; attempt < 16; attempt++) {
    const name = generateName(prefix);
    if (!served.index.has(name)) return name;
  }
  throw conflict(`could not generate a free name from "${prefix}"; try again`);
}
