/**
 * What `svc import` checks of each object before it writes anything: what a create through the API would check, so a
 * backup cannot store what the server itself would refuse (a RoleBinding whose roleRef is a string, a name with a
 * slash), plus the metadata a stored object always has and a create would have given it.
 *
 * The import starts no plugin, so it knows the core models (users, roles, bindings, tokens, posts, plugins) and not the
 * models plugins register when they start: objects of the core models are checked fully (schema, names, labels,
 * metadata), objects of plugins' models by their metadata and apiVersion only.
 */
import type { FieldError, ModelDefinition } from '@svc/plugin-api';
import { isValidPluginName } from '../objects/domains.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../objects/json-limits.js';
import { validateClientMetadata } from '../objects/metadata.js';
import { type NormalizedModel, normalizeModelDefinition } from '../objects/model-definition.js';
import { checkObjectShape } from '../objects/object-shape.js';
import type { BackupEntry } from './backup-format.js';
import { authorityProblems } from './tls-backup.js';

/** A document of the backup with what it restores; `position` (1-based, the header is 1) names it in messages. */
export interface PositionedEntry {
  position: number;
  entry: BackupEntry;
}

/** Problems reported in the message, at most; the rest are counted. */
const REPORTED = 5;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Throws, naming each document and its problem (the first few), when any document would not be restored whole. */
export function validateBackup(entries: readonly PositionedEntry[], coreModels: readonly ModelDefinition[]): void {
  const models = new Map<string, NormalizedModel>();
  for (const definition of coreModels) {
    const model = normalizeModelDefinition(definition, { kind: 'system' });
    models.set(model.resource, model);
  }
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const once = (key: string, position: number, what: string) => {
    const first = seen.get(key);
    if (first === undefined) seen.set(key, position);
    else problems.push(`document ${position}: ${what} is given twice (document ${first} too)`);
  };
  for (const { position, entry } of entries) {
    switch (entry.type) {
      case 'object':
      case 'record': {
        once(`object ${entry.resource} ${entry.name}`, position, `${entry.resource} "${entry.name}"`);
        const object = entry.type === 'object' ? entry.object : parsedRecord(entry.value);
        const errors = objectProblems(object, entry.resource, entry.name, models.get(entry.resource));
        if (errors.length > 0) problems.push(`document ${position} (${describe(object, entry)}): ${summary(errors)}`);
        break;
      }
      case 'secrets':
        for (const [name] of entry.records) once(`secret ${entry.kind} ${name}`, position, `secret record ${name}`);
        break;
      case 'plugin':
        once(`plugin ${entry.name}`, position, `the code of plugin ${entry.name}`);
        if (!isValidPluginName(entry.name)) problems.push(`document ${position}: "${entry.name}" is not a plugin name`);
        break;
      case 'authority':
        once('authority', position, 'the TLS CA');
        for (const problem of authorityProblems(entry)) problems.push(`document ${position} (the TLS CA): ${problem}`);
    }
  }
  if (problems.length === 0) return;
  const more = problems.length > REPORTED ? `; and ${problems.length - REPORTED} more` : '';
  throw new Error(`${problems.slice(0, REPORTED).join('; ')}${more}`);
}

/** A StoredRecord's bytes, which must be an object too: the server reads every record of a model as one. */
function parsedRecord(value: Buffer): unknown {
  try {
    return JSON.parse(value.toString('utf8'));
  } catch {
    return undefined;
  }
}

function objectProblems(object: unknown, resource: string, name: string, model?: NormalizedModel): FieldError[] {
  if (!isObject(object)) return [{ path: '', message: 'must be a JSON object (an API object)' }];
  if (nestsDeeperThan(object)) return [{ path: '', message: `nests deeper than ${MAX_JSON_DEPTH} levels` }];
  const meta = isObject(object.metadata) ? object.metadata : {};
  const errors: FieldError[] = model
    ? // A copy: the schema fills in its defaults, and the import restores the object as it was stored.
      checkObjectShape(structuredClone(object), model)
    : [...identityErrors(object, resource), ...validateClientMetadata(object.metadata, 'create')];
  if (meta.name !== name) errors.push({ path: '/metadata/name', message: `must be "${name}", the record's name` });
  errors.push(...storedMetadataErrors(meta));
  return errors;
}

/** An object of a model the import does not know: its apiVersion must be of the group its resource is in. */
function identityErrors(object: Json, resource: string): FieldError[] {
  const errors: FieldError[] = [];
  const { apiVersion, kind } = object;
  if (typeof kind !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
    errors.push({ path: '/kind', message: 'must be a kind (a capitalised name)' });
  }
  if (typeof apiVersion !== 'string') return [...errors, { path: '/apiVersion', message: 'is required' }];
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
  const resourceGroup = resource.includes('/') ? resource.slice(0, resource.lastIndexOf('/')) : '';
  if (group !== resourceGroup) {
    errors.push({ path: '/apiVersion', message: `must be of group "${resourceGroup}", the group of ${resource}` });
  }
  return errors;
}

/** What the server gave the object when it was created, which a restore keeps as it is. */
function storedMetadataErrors(meta: Json): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof meta.uid !== 'string' || meta.uid === '') {
    errors.push({ path: '/metadata/uid', message: 'is required (a stored object has one)' });
  }
  for (const field of ['creationTimestamp', 'deletionTimestamp'] as const) {
    const value = meta[field];
    if (value === undefined && field === 'deletionTimestamp') continue;
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
      errors.push({ path: `/metadata/${field}`, message: 'must be a timestamp (RFC 3339)' });
    }
  }
  if (!Number.isSafeInteger(meta.version) || (meta.version as number) < 0) {
    errors.push({ path: '/metadata/version', message: 'must be a non-negative integer (a stored object has one)' });
  }
  return errors;
}

function describe(object: unknown, entry: { resource: string; name: string }): string {
  const kind = isObject(object) && typeof object.kind === 'string' ? object.kind : entry.resource;
  return `${kind} "${entry.name}"`;
}

function summary(errors: readonly FieldError[]): string {
  const shown = errors.slice(0, 3).map((e) => `${e.path || '/'}: ${e.message}`);
  return `${shown.join(', ')}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}`;
}
