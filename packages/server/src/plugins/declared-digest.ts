/**
 * What svc last wrote of an object a plugin declares in `extensions/`, so a later start or upgrade can tell a user's
 * change from its own: each write of a declared object carries, in an annotation, the digest of its content as stored.
 * An object whose content still has that digest is as svc left it; any other content is a user's (or someone's) edit.
 */
import { createHash } from 'node:crypto';
import { DECLARED_DIGEST_ANNOTATION, type ExtensionObject } from '@svc/plugin-api';
import { stringify } from 'safe-stable-stringify';
import type { NormalizedModel } from '../objects/model-definition.js';

/**
 * The digest of what an object says: everything but status, server-kept metadata and finalizers (controllers and users
 * add and take those off as they work; a finalizer never makes a declaration "edited"). Keys are sorted first, so the
 * order fields were written in does not count.
 */
export function contentDigest(object: ExtensionObject): string {
  const { metadata, status: _status, ...rest } = object;
  const { [DECLARED_DIGEST_ANNOTATION]: _digest, ...annotations } = metadata.annotations ?? {};
  const content = { ...rest, name: metadata.name, labels: metadata.labels ?? {}, annotations };
  return `sha256:${createHash('sha256').update(stringify(content)).digest('hex')}`;
}

/**
 * The digest `object` will have once stored as a model's object: its schema's defaults filled in first, as the write
 * itself fills them (Ajv's useDefaults), so the digest recorded with a write is the one its stored content has.
 */
export function storedDigest(model: NormalizedModel | undefined, object: ExtensionObject): string {
  const copy = structuredClone(object);
  model?.validate(copy);
  return contentDigest(copy);
}

/** The digest svc recorded on `object`, or undefined when svc never wrote it from a declaration. */
export function recordedDigest(object: ExtensionObject): string | undefined {
  return object.metadata.annotations?.[DECLARED_DIGEST_ANNOTATION];
}
