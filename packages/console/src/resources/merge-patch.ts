/**
 * RFC 7386 merge patches, for reload-and-merge after a conflict: the user's changes are the patch from what they
 * loaded to what they edited, applied on top of the server's newer version. Pure.
 */
type Json = unknown;

/** A deep copy of JSON data; unlike structuredClone it also copies Vue's reactive proxies. */
export const cloneJson = <T>(value: T): T => (value === undefined ? value : JSON.parse(JSON.stringify(value)));

const isObject = (value: Json): value is Record<string, Json> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The merge patch that turns `before` into `after` (arrays are replaced whole, removed keys become null). */
export function mergePatchBetween(before: Json, after: Json): Json {
  if (!isObject(before) || !isObject(after)) return after;
  const patch: Record<string, Json> = {};
  for (const key of Object.keys(before)) {
    if (!(key in after)) patch[key] = null;
  }
  for (const [key, value] of Object.entries(after)) {
    if (!(key in before)) {
      patch[key] = value;
      continue;
    }
    if (JSON.stringify(before[key]) === JSON.stringify(value)) continue;
    patch[key] = isObject(before[key]) && isObject(value) ? mergePatchBetween(before[key], value) : value;
  }
  return patch;
}

/** `target` with `patch` applied (RFC 7386); neither is changed. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return cloneJson(patch);
  const result: Record<string, Json> = isObject(target) ? cloneJson(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/** Whether a patch changes nothing. */
export function isEmptyPatch(patch: Json): boolean {
  return isObject(patch) && Object.keys(patch).length === 0;
}
