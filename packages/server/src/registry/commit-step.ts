import type { ExtensionObject } from '@svc/plugin-api';
import {
  KeyExistsError,
  RevisionConflictError,
  type Store,
  type StoredRecord,
  type UniqueClaim,
} from '../store/types.js';
import { encodeObject } from './codec.js';
import { type CommitBus, deletedChange } from './commit-bus.js';
import type { ServedModel } from './model-registry.js';
import type { ReplicaRevisions } from './replica-revisions.js';
import { claimRefused, LostRace, nameTaken } from './write-errors.js';
import type { CurrentObject, Written } from './write-types.js';

/**
 * The last step of a write, once it is admitted: the index takes the change and its unique values in one synchronous
 * step (reserving them against any other writer), the store commits, and the commit is recorded and announced. If the
 * store refuses, the index change is undone, so a failed write leaves store and indexes as they were.
 */
export class CommitStep {
  constructor(
    private readonly store: Store,
    private readonly bus: CommitBus,
    private readonly replica: ReplicaRevisions,
  ) {}

  /** Stores an admitted new object. */
  async create(served: ServedModel, stored: ExtensionObject): Promise<Written> {
    const name = stored.metadata.name;
    reserve(served, undefined, stored);
    const record = await this.store
      .create(served.model.resource, name, (revision) => encodeObject(stored, revision), this.claimsOf(served, stored))
      .catch((error: unknown) => {
        served.index.apply(stored, undefined);
        throw error instanceof KeyExistsError ? nameTaken(served.model, name) : claimRefused(served.model, error);
      });
    this.replica.wrote(served, name, record.revision);
    this.bus.announce({ type: 'ADDED', revision: record.revision, served, object: stored, bytes: record.value });
    return { object: stored, bytes: record.value, removed: false };
  }

  /** Stores an admitted replacement of `current`, or the removal it amounts to; a lost race throws `LostRace`. */
  async replace(
    served: ServedModel,
    current: CurrentObject,
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
      throw error instanceof RevisionConflictError
        ? new LostRace(served.model, name)
        : claimRefused(served.model, error);
    }
    this.replica.wrote(served, name, record.revision);
    if (!removing) {
      const { revision, value: bytes } = record;
      this.bus.announce({ type: 'MODIFIED', revision, served, object: stored, prevObject: prev, bytes });
      return { object: stored, bytes, removed: false };
    }
    stored.metadata.resourceVersion = String(record.revision);
    this.bus.announce(deletedChange(served, prev, record.revision));
    return { object: stored, bytes: Buffer.from(JSON.stringify(stored)), removed: true };
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
}

/** What a dry run answers in place of the commit: the object as the write would leave it, its unique values checked. */
export function dryRunAnswer(served: ServedModel, object: ExtensionObject, removed: boolean): Written {
  if (!removed) served.index.checkUnique(object);
  return { object, bytes: Buffer.from(JSON.stringify(object)), removed };
}

/** Checks unique indexes and applies the change to the index in one synchronous step (see the class comment). */
function reserve(served: ServedModel, prev: ExtensionObject | undefined, next: ExtensionObject | undefined): void {
  if (next) served.index.checkUnique(next);
  served.index.apply(prev, next);
}
