import type { AnyExtensionObject } from './objects.js';
import type { ExtensionClient } from './plugin.js';

/**
 * The finalizer pattern: while an object is active its controller keeps a finalizer on it; once a delete sets
 * `deletionTimestamp`, the object stays until the controller has cleaned up and removed its finalizer (svc removes it
 * when no finalizer is left).
 */
export function isBeingDeleted(object: AnyExtensionObject): boolean {
  return Boolean(object.metadata.deletionTimestamp);
}

export function hasFinalizer(object: AnyExtensionObject, finalizer: string): boolean {
  return object.metadata.finalizers?.includes(finalizer) ?? false;
}

/** A copy of `object` with `finalizer` added (once). */
export function withFinalizer<T extends AnyExtensionObject>(object: T, finalizer: string): T {
  const finalizers = object.metadata.finalizers ?? [];
  if (finalizers.includes(finalizer)) return object;
  return { ...object, metadata: { ...object.metadata, finalizers: [...finalizers, finalizer] } };
}

/** A copy of `object` without `finalizer`. */
export function withoutFinalizer<T extends AnyExtensionObject>(object: T, finalizer: string): T {
  const finalizers = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  return { ...object, metadata: { ...object.metadata, finalizers } };
}

export type FinalizerOutcome<T> = { deleting: false; object: T } | { deleting: true };

/**
 * One step of the pattern for a reconciler: an active object gets `finalizer` (and is returned as stored, to go on
 * reconciling); an object being deleted has `cleanup` run, then loses `finalizer` (`deleting: true`: stop there).
 * A write conflict throws, and the reconciler's retry starts over from the current state.
 */
export async function handleFinalizer<T extends AnyExtensionObject>(
  client: ExtensionClient,
  object: T,
  finalizer: string,
  cleanup: (object: T) => Promise<void> | void,
): Promise<FinalizerOutcome<T>> {
  if (isBeingDeleted(object)) {
    if (hasFinalizer(object, finalizer)) {
      await cleanup(object);
      await client.update(withoutFinalizer(object, finalizer));
    }
    return { deleting: true };
  }
  if (hasFinalizer(object, finalizer)) return { deleting: false, object };
  return { deleting: false, object: await client.update(withFinalizer(object, finalizer)) };
}
