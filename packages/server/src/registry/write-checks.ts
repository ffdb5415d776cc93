import { conflict, type ExtensionObject, type FieldError, invalid } from '@svc/plugin-api';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../objects/json-limits.js';
import type { NormalizedModel } from '../objects/model-definition.js';
import { checkObjectShape } from '../objects/object-shape.js';
import type { WriteOptions } from './write-types.js';

/** The checks a write makes of its body and of the stored object before anything is admitted: pure, they throw. */

/** The body as the object to write, once its shape and schema pass; the service takes ownership of it. */
export function validated(
  model: NormalizedModel,
  body: unknown,
  mode: 'create' | 'update',
  options: WriteOptions,
): ExtensionObject {
  // Before the schema walk (which recurses): a patch can grow an object past the limit its request body kept.
  if (nestsDeeperThan(body)) {
    throw invalid(`${model.kind} nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
  }
  // With a status subresource, the main resource's writes never set status (server-fields.ts keeps the stored one),
  // so a status in their body is not checked either, as Kubernetes drops it before validating.
  const ignoresStatus =
    model.statusSubresource && options.subresource !== 'status' && !options.withStatus && isPlainObject(body);
  const checked = ignoresStatus ? withoutStatus(body) : body;
  const errors: FieldError[] = checkObjectShape(checked, model, {
    mode,
    allowUnprefixedLabels: options.allowUnprefixedLabels ?? true,
  });
  if (errors.length > 0) {
    const summary = errors
      .slice(0, 5)
      .map((e) => `${e.path} ${e.message}`)
      .join('; ');
    throw invalid(`${model.kind} is invalid: ${summary}${errors.length > 5 ? '; …' : ''}`, errors);
  }
  // A request's freshly parsed JSON, owned from here on; in-process callers pass a copy.
  return body as ExtensionObject;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutStatus(body: Record<string, unknown>): Record<string, unknown> {
  const { status: _ignored, ...rest } = body;
  return rest;
}

/** An update's body names the object of its path and carries the version it was read at. */
export function checkUpdateBody(object: ExtensionObject, name: string): void {
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
}

/** A patch leaves the name as it was. */
export function checkPatchedName(object: ExtensionObject, name: string): void {
  if (object.metadata.name !== name) {
    throw invalid('a patch cannot change metadata.name', [{ path: '/metadata/name', message: `must stay "${name}"` }]);
  }
}

/**
 * The optimistic lock: `metadata.version` (the seed's) and, where a client sends it, `metadata.resourceVersion`
 * (Kubernetes clients'), must match the stored object. A body with only a resourceVersion takes the stored version.
 */
export function checkLock(kind: string, current: ExtensionObject, object: ExtensionObject): void {
  const { version, resourceVersion } = object.metadata;
  if (version !== undefined || resourceVersion === undefined) checkVersion(kind, current, version);
  if (resourceVersion !== undefined && String(resourceVersion) !== current.metadata.resourceVersion) {
    throw conflict(
      `${kind} "${current.metadata.name}" is at metadata.resourceVersion ${current.metadata.resourceVersion}, ` +
        `the request carries ${JSON.stringify(resourceVersion)}; get the object again and retry`,
    );
  }
  object.metadata.version = current.metadata.version;
}

function checkVersion(kind: string, current: ExtensionObject, version: unknown): void {
  if (version !== current.metadata.version) {
    throw conflict(
      `${kind} "${current.metadata.name}" is at metadata.version ${current.metadata.version}, ` +
        `the request carries ${JSON.stringify(version)}; get the object again and retry`,
    );
  }
}

/** A delete's preconditions (Kubernetes' DeleteOptions): each one given must equal the stored object's. */
export function checkPreconditions(
  kind: string,
  current: ExtensionObject,
  wanted: WriteOptions['preconditions'],
): void {
  for (const field of ['uid', 'resourceVersion'] as const) {
    const value = wanted?.[field];
    if (value !== undefined && value !== current.metadata[field]) {
      throw conflict(
        `${kind} "${current.metadata.name}" does not meet the precondition: metadata.${field} is ` +
          `${JSON.stringify(current.metadata[field])}, the request wants ${JSON.stringify(value)}`,
      );
    }
  }
}
