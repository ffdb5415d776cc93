/**
 * Label and annotation maps (the seed's "Label naming" table, docs/api.md "Objects"). Keys are qualified names; under
 * the service's own prefixes only keys the service defines are accepted, so a plugin cannot forge, say, a role
 * template flag the service would act on under a name it never defined.
 */
import {
  AGGREGATE_TO_LABEL_PREFIX,
  BUILT_IN_LABEL,
  type FieldError,
  HIDDEN_LABEL,
  PLUGIN_NAME_LABEL,
  POST_OWNER_LABEL,
  POST_PUBLISHED_LABEL,
  ROLE_TEMPLATE_LABEL,
  SERVICE_DOMAIN,
  TOKEN_USER_LABEL,
} from '@svc/plugin-api';
import { isServiceDomain, SERVICE_DOMAINS } from './domains.js';
import { qualifiedNameProblems } from './names.js';
import { joinPointer } from './pointer.js';

/** Prefixes reserved for the service (the service's domains and their subdomains). */
export const RESERVED_LABEL_PREFIXES = SERVICE_DOMAINS;

/**
 * Every label key the service defines under a reserved prefix (named in @svc/plugin-api's vocabulary): exact keys or
 * patterns. A label the service starts using is added there and here.
 */
export const WELL_KNOWN_LABEL_KEYS: readonly (string | RegExp)[] = Object.freeze([
  ROLE_TEMPLATE_LABEL,
  HIDDEN_LABEL,
  BUILT_IN_LABEL,
  // The prefix holds no regular-expression syntax but its dots.
  new RegExp(`^${AGGREGATE_TO_LABEL_PREFIX.replaceAll('.', '\\.')}[a-z0-9]([-a-z0-9]*[a-z0-9])?$`),
  PLUGIN_NAME_LABEL,
  POST_OWNER_LABEL,
  POST_PUBLISHED_LABEL,
  TOKEN_USER_LABEL,
]);

/** Keys that would reach Object.prototype if a map were ever copied with plain assignment. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_LABEL_VALUE_LENGTH = 63;
const LABEL_VALUE_PATTERN = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;
/**
 * Labels per object, and their keys' and values' total size. Every label is indexed (selectors, the console's
 * filters), so they cost memory for as long as the object lives: 150,000 labels on one post took 65 MB of heap.
 * 256 labels of the longest key and value are about 96 KiB; the byte limit keeps any mix under 64 KiB.
 */
export const MAX_LABELS = 256;
export const MAX_LABELS_BYTES = 64 * 1024;

export interface LabelOptions {
  /** False for objects a plugin declares in `extensions/`: the seed says unprefixed keys "cannot be used by plugins". */
  allowUnprefixed: boolean;
}

export function isWellKnownLabelKey(key: string): boolean {
  return WELL_KNOWN_LABEL_KEYS.some((known) => (typeof known === 'string' ? known === key : known.test(key)));
}

export function validateLabels(labels: unknown, options: LabelOptions, path = '/metadata/labels'): FieldError[] {
  // Sizes first: past them nothing else is checked, so a huge map costs one count (keys are cheaper than entries)
  // and one error.
  const count = isPlainMap(labels) ? Object.keys(labels).length : 0;
  if (count > MAX_LABELS) return [{ path, message: `must have at most ${MAX_LABELS} labels (has ${count})` }];
  const map = asStringMap(labels, path);
  if (!map.ok) return map.errors;
  const bytes = totalBytes(map.entries);
  if (bytes > MAX_LABELS_BYTES) {
    return [
      { path, message: `total size of keys and values must be at most ${MAX_LABELS_BYTES} bytes (has ${bytes})` },
    ];
  }
  const errors = nonStringErrors(map.entries, path);
  for (const [key, value] of map.entries) {
    const at = joinPointer(path, key);
    errors.push(...keyErrors(key, at));
    if (!key.includes('/') && !options.allowUnprefixed) {
      errors.push({
        path: at,
        message: `label key "${key}" has no prefix; unprefixed keys cannot be used by plugins (use a domain you own, such as <plugin>.${SERVICE_DOMAIN}/${key})`,
      });
    }
    const prefix = key.includes('/') ? key.slice(0, key.indexOf('/')) : undefined;
    if (prefix !== undefined && isServiceDomain(prefix) && !isWellKnownLabelKey(key)) {
      errors.push({
        path: at,
        message: `label key "${key}" uses the reserved prefix "${prefix}/" but is not a key the service defines`,
      });
    }
    if (typeof value === 'string') errors.push(...labelValueErrors(value, at));
  }
  return errors;
}

export function validateAnnotations(annotations: unknown, path = '/metadata/annotations'): FieldError[] {
  const map = asStringMap(annotations, path);
  if (!map.ok) return map.errors;
  const bytes = totalBytes(map.entries);
  if (bytes > MAX_ANNOTATIONS_BYTES) {
    return [
      { path, message: `total size of keys and values must be at most ${MAX_ANNOTATIONS_BYTES} bytes (has ${bytes})` },
    ];
  }
  const errors = nonStringErrors(map.entries, path);
  for (const [key] of map.entries) errors.push(...keyErrors(key, joinPointer(path, key)));
  return errors;
}

/** Bytes of UTF-8 in a map's keys and string values. */
function totalBytes(entries: [string, unknown][]): number {
  let bytes = 0;
  for (const [key, value] of entries) {
    bytes += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  }
  return bytes;
}

function keyErrors(key: string, path: string): FieldError[] {
  if (FORBIDDEN_KEYS.has(key)) return [{ path, message: `"${key}" is not allowed as a key` }];
  return qualifiedNameProblems(key).map((message) => ({ path, message: `key ${message}` }));
}

function labelValueErrors(value: string, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (value.length > MAX_LABEL_VALUE_LENGTH) {
    errors.push({ path, message: `value must be at most ${MAX_LABEL_VALUE_LENGTH} characters (has ${value.length})` });
  }
  if (!LABEL_VALUE_PATTERN.test(value)) {
    errors.push({
      path,
      message:
        "value must be empty or start and end with a letter or digit, with only letters, digits, '-', '_' and '.'",
    });
  }
  return errors;
}

type MapCheck = { ok: false; errors: FieldError[] } | { ok: true; entries: [string, unknown][] };

function isPlainMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The map itself must be a plain JSON object. */
function asStringMap(value: unknown, path: string): MapCheck {
  if (value === undefined) return { ok: true, entries: [] };
  if (!isPlainMap(value)) {
    return { ok: false, errors: [{ path, message: 'must be an object mapping strings to strings' }] };
  }
  return { ok: true, entries: Object.entries(value) };
}

/** A map's values that are not strings, each reported and the rest still checked. */
function nonStringErrors(entries: [string, unknown][], path: string): FieldError[] {
  return entries
    .filter(([, v]) => typeof v !== 'string')
    .map(([key]) => ({ path: joinPointer(path, key), message: 'value must be a string' }));
}
