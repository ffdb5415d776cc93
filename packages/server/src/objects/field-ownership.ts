/**
 * Server-side apply's field ownership, at the level kubectl needs (docs/api.md "Server-side apply"): each apply
 * manager owns the fields its last applied configuration set, recorded in `metadata.managedFields` as FieldsV1. Maps
 * merge key by key; lists and scalars are atomic (as a custom resource's are without list-type markers). Applying
 * sets the configuration's fields, removes the fields the manager applied before and no longer does (unless another
 * manager owns them), and refuses to change a field another manager owns unless forced, which takes it over. Only
 * apply operations are recorded. Pure, given the clock.
 */
import { isDeepStrictEqual } from 'node:util';
import { conflict, type ExtensionObject, type ManagedFieldsEntry } from '@svc/plugin-api';

type Json = Record<string, unknown>;
type Path = string[];

/** Top-level fields that are the object's identity or the server's, never owned. */
const UNOWNED_TOP = new Set(['apiVersion', 'kind', 'metadata']);
/** The metadata fields a configuration may set. */
const OWNED_METADATA = ['labels', 'annotations', 'finalizers'];

export interface ApplyOptions {
  manager: string;
  force: boolean;
  now: Date;
  /** The model's apiVersion, recorded in the manager's entry. */
  apiVersion: string;
  /** Models with a status subresource: the main resource's apply does not own status. */
  ignoreStatus: boolean;
}

export interface Applied {
  object: ExtensionObject;
  /** False when applying changed nothing (the same configuration again): nothing needs writing. */
  changed: boolean;
}

/** The object `config` applied by `options.manager` makes of `current` (undefined: the object is created). */
export function applyConfiguration(
  current: ExtensionObject | undefined,
  config: ExtensionObject,
  options: ApplyOptions,
): Applied {
  const owned = ownedPaths(config, options.ignoreStatus);
  const entries = current?.metadata.managedFields ?? [];
  const isMine = (e: ManagedFieldsEntry) => e.manager === options.manager && e.operation === 'Apply';
  const mine = entries.find(isMine);
  let others = entries.filter((e) => !isMine(e)).map((e) => ({ entry: e, paths: leafPaths(e.fieldsV1) }));
  const base: Json = current
    ? structuredClone(current)
    : { apiVersion: config.apiVersion, kind: config.kind, metadata: { name: config.metadata.name } };

  const conflicts = owned.flatMap((path) =>
    others
      .filter(
        (o) => o.paths.some((p) => overlaps(p, path)) && !isDeepStrictEqual(valueAt(base, path), valueAt(config, path)),
      )
      .map((o) => ({ path, entry: o.entry })),
  );
  if (conflicts.length > 0 && !options.force) {
    const lines = conflicts.map(
      ({ path, entry }) => `conflict with "${entry.manager}" using ${entry.apiVersion}: .${path.join('.')}`,
    );
    // Kubernetes' words: kubectl follows them with how to resolve the conflicts (force, or leave the fields out).
    const count = `${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}`;
    throw conflict(`Apply failed with ${count}: ${lines.join('; ')}`);
  }
  if (conflicts.length > 0) {
    const taken = conflicts.map((c) => c.path);
    others = others
      .map((o) => ({ ...o, paths: o.paths.filter((p) => !taken.some((t) => overlaps(p, t))) }))
      .filter((o) => o.paths.length > 0)
      .map((o) => ({ ...o, entry: { ...o.entry, fieldsV1: fieldsOf(o.paths) } }));
  }

  // Fields this manager applied before and leaves out now go, unless another manager still owns them.
  for (const path of mine ? leafPaths(mine.fieldsV1) : []) {
    if (owned.some((p) => overlaps(p, path)) || others.some((o) => o.paths.some((p) => overlaps(p, path)))) continue;
    removeAt(base, path);
  }
  for (const path of owned) setAt(base, path, structuredClone(valueAt(config, path)));
  if (config.metadata.resourceVersion !== undefined)
    (base.metadata as Json).resourceVersion = config.metadata.resourceVersion;

  const fieldsV1 = fieldsOf(owned);
  const entry: ManagedFieldsEntry = {
    manager: options.manager,
    operation: 'Apply',
    apiVersion: options.apiVersion,
    time: mine?.time ?? options.now.toISOString(),
    fieldsType: 'FieldsV1',
    fieldsV1,
  };
  const object = base as ExtensionObject;
  // In the order they were: an entry keeps its place, a new one goes last.
  const kept = new Map(others.map((o) => [`${o.entry.manager} ${o.entry.operation}`, o.entry]));
  const managedFields = entries.flatMap((e) => (isMine(e) ? [entry] : (kept.get(`${e.manager} ${e.operation}`) ?? [])));
  if (!mine) managedFields.push(entry);
  object.metadata.managedFields = managedFields;
  // The same configuration again changes nothing, its entry's time included; any other apply is stamped now.
  const changed = current === undefined || !isDeepStrictEqual(object, current);
  if (changed) entry.time = options.now.toISOString();
  return { object, changed };
}

/** The leaf paths a configuration sets: into maps key by key, stopping at scalars, lists and empty maps. */
export function ownedPaths(config: ExtensionObject, ignoreStatus: boolean): Path[] {
  const paths: Path[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (UNOWNED_TOP.has(key) || (ignoreStatus && key === 'status') || value === undefined) continue;
    collect(value, [key], paths);
  }
  const meta = (config.metadata ?? {}) as unknown as Json;
  for (const key of OWNED_METADATA) {
    if (meta[key] === undefined) continue;
    if (key === 'finalizers') paths.push(['metadata', key]);
    else collect(meta[key], ['metadata', key], paths);
  }
  return paths;
}

function collect(value: unknown, path: Path, into: Path[]): void {
  if (!isMap(value) || Object.keys(value).length === 0) {
    into.push(path);
    return;
  }
  for (const [key, child] of Object.entries(value)) collect(child, [...path, key], into);
}

/** FieldsV1 of a set of leaf paths: `{"f:spec": {"f:age": {}}}`. */
export function fieldsOf(paths: readonly Path[]): Json {
  const root: Json = {};
  for (const path of paths) {
    let node = root;
    for (const key of path) node = (node[`f:${key}`] ??= {}) as Json;
  }
  return root;
}

/** The leaf paths of FieldsV1 (the inverse of fieldsOf; `.` markers of other managers' entries count as their parent). */
export function leafPaths(fields: unknown, prefix: Path = []): Path[] {
  if (!isMap(fields)) return [];
  const keys = Object.keys(fields).filter((k) => k.startsWith('f:'));
  if (keys.length === 0) return prefix.length > 0 ? [prefix] : [];
  return keys.flatMap((k) => leafPaths(fields[k], [...prefix, k.slice(2)]));
}

/** One path is the other or contains it. */
function overlaps(a: Path, b: Path): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

function isMap(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function valueAt(object: unknown, path: Path): unknown {
  let node = object;
  for (const key of path) node = isMap(node) ? node[key] : undefined;
  return node;
}

function setAt(object: Json, path: Path, value: unknown): void {
  let node = object;
  for (const key of path.slice(0, -1)) {
    if (!isMap(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  node[path[path.length - 1]!] = value;
}

/** Removes the field at `path`, and the maps it leaves empty on the way up (never `metadata` itself). */
function removeAt(object: Json, path: Path): void {
  const parents: Json[] = [];
  let node: unknown = object;
  for (const key of path.slice(0, -1)) {
    if (!isMap(node)) return;
    parents.push(node);
    node = node[key];
  }
  if (!isMap(node)) return;
  delete node[path[path.length - 1]!];
  for (let i = parents.length - 1; i >= 0; i--) {
    const key = path[i]!;
    const child = parents[i]![key];
    if (!isMap(child) || Object.keys(child).length > 0 || (i === 0 && key === 'metadata')) break;
    delete parents[i]![key];
  }
}
