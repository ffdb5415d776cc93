import type { ExtensionObject } from '@svc/plugin-api';
import type { StoredRecord } from '../store/types.js';
import type { Actor } from './admission.js';

/** What the object service's writes take and give, shared by its parts and its callers. */

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

/** An object as a write read it: the stored record (its revision is the write's lock) and the object decoded. */
export interface CurrentObject {
  record: StoredRecord;
  object: ExtensionObject;
}

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
