import type { ExtensionObject } from '@svc/plugin-api';
import type { ChangeType } from '../store/types.js';
import type { ServedModel } from './model-registry.js';

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

/**
 * The change events of the object service: every committed write, local or applied from another replica, announced
 * to its listeners (the watch hub, reconcilers, caches) in the order it committed.
 */
export class CommitBus {
  private readonly listeners = new Set<CommitListener>();
  private announcedUpTo = 0;

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  /** Subscribes to committed writes; returns the unsubscribe function. */
  subscribe(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The newest revision announced (written, or applied from another replica). Every revision up to it has committed:
   * writers commit in revision order.
   */
  get latestRevision(): number {
    return this.announcedUpTo;
  }

  /** Listeners run after the commit: one that throws must not undo or fail a write that already happened. */
  announce(change: CommittedChange): void {
    if (change.revision > this.announcedUpTo) this.announcedUpTo = change.revision;
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}

/** The announcement of a removal: the object's last stored state, carrying the deletion's revision. */
export function deletedChange(served: ServedModel, last: ExtensionObject, revision: number): CommittedChange {
  const object = { ...last, metadata: { ...last.metadata, resourceVersion: String(revision) } };
  return { type: 'DELETED', revision, served, object, prevObject: last, bytes: Buffer.from(JSON.stringify(object)) };
}
