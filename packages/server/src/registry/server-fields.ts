import type { ExtensionObject } from '@svc/plugin-api';
import { withFinalizers } from '../objects/metadata.js';
import type { NormalizedModel } from '../objects/model-definition.js';
import { deepCopy } from './codec.js';
import type { WriteOptions } from './write-types.js';

/**
 * The fields the server owns in every write, whatever the body says (docs/api.md "Objects"): pure, so the rules are
 * read and tested in one place.
 */

/** A new object's: its uid, creation time and version 0, the model's finalizers; changes `object` and returns it. */
export function stampNew(
  model: Pick<NormalizedModel, 'finalizers' | 'statusSubresource'>,
  object: ExtensionObject,
  made: { uid: string; now: Date },
  options: Pick<WriteOptions, 'applied' | 'withStatus'>,
): ExtensionObject {
  const meta = object.metadata;
  meta.uid = made.uid;
  meta.creationTimestamp = made.now.toISOString();
  meta.version = 0;
  delete meta.deletionTimestamp;
  if (model.finalizers.length > 0) meta.finalizers = withFinalizers(meta.finalizers, model.finalizers);
  // Field managers are recorded by server-side apply only.
  if (!options.applied) delete meta.managedFields;
  if (model.statusSubresource && !options.withStatus) delete object.status;
  return object;
}

/**
 * A replacement's: `next` keeps what `prev` holds of the server's fields, one version on; a status write keeps all but
 * `status` as stored. Changes `next`, and returns the object to store (a new one for a status write).
 */
export function stampReplacement(
  model: Pick<NormalizedModel, 'statusSubresource'>,
  prev: ExtensionObject,
  next: ExtensionObject,
  options: Pick<WriteOptions, 'applied' | 'subresource'> & { deleting?: boolean },
): ExtensionObject {
  const meta = next.metadata;
  meta.uid = prev.metadata.uid;
  meta.creationTimestamp = prev.metadata.creationTimestamp;
  meta.deletionTimestamp = options.deleting ? meta.deletionTimestamp : prev.metadata.deletionTimestamp;
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
    const stored = deepCopy(prev);
    stored.metadata.version = meta.version;
    if (status === undefined) delete stored.status;
    else stored.status = status;
    return stored;
  }
  if (model.statusSubresource) {
    if (prev.status === undefined) delete next.status;
    else next.status = prev.status;
  }
  return next;
}
