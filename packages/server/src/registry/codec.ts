import type { ExtensionObject, ObjectMeta } from '@svc/plugin-api';
import rfdc from 'rfdc';

/**
 * Objects are stored as the JSON bytes they are served as, with `metadata.resourceVersion` already inside, so a get
 * answers with the stored bytes unchanged and a list concatenates them.
 */
export function encodeObject(object: ExtensionObject, revision: number): Buffer {
  object.metadata.resourceVersion = String(revision);
  return Buffer.from(JSON.stringify(object));
}

export function decodeObject(bytes: Buffer): ExtensionObject {
  return JSON.parse(bytes.toString('utf8')) as ExtensionObject;
}

const METADATA_ORDER: (keyof ObjectMeta)[] = [
  'name',
  'generateName',
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'version',
  'resourceVersion',
  'labels',
  'annotations',
  'finalizers',
  'managedFields',
];

/** Rebuilds an object with its fields in a stable, readable order: apiVersion, kind, metadata, spec, status, rest. */
export function canonicalize(object: ExtensionObject): ExtensionObject {
  const { apiVersion, kind, metadata, spec, status, ...rest } = object;
  const meta: Record<string, unknown> = {};
  for (const key of METADATA_ORDER) {
    const value = metadata[key];
    if (value !== undefined && value !== null) meta[key] = value;
  }
  const out: ExtensionObject = { apiVersion, kind, metadata: meta as unknown as ObjectMeta };
  if (spec !== undefined) out.spec = spec;
  if (status !== undefined) out.status = status;
  return Object.assign(out, rest);
}

const copyJson = rfdc({ proto: false, circles: false });

/**
 * A deep copy of a JSON value (an object as decoded or about to be stored). rfdc (Fastify's own dependency) copies a
 * Person in about 0.5 µs where structuredClone takes 4 µs; a reconcile makes three such copies per write pair.
 */
export function deepCopy<T>(value: T): T {
  return copyJson(value);
}
