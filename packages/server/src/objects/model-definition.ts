/**
 * Checks a model declaration (the seed's "Model declaration attributes" and IndexSpec tables) and who may declare it
 * (docs/api.md "Plugins"), and derives what the rest of the server keys on: apiVersion, store resource, validator.
 */
import type { IndexSpec, JsonSchema, ModelDefinition, PrinterColumn } from '@svc/plugin-api';
import { isGroupOwnedBy, isValidPluginName, pluginServiceGroups, RESERVED_PLUGIN_NAMES } from './domains.js';
import { finalizerErrors } from './metadata.js';
import { subdomainProblems } from './names.js';
import { normalizePrinterColumns, normalizeResourceNames } from './printer-columns.js';
import { compileModelSchema, type ObjectValidator } from './schema.js';

export { isGroupOwnedBy, isServiceDomain, RESERVED_PLUGIN_NAMES, SERVICE_DOMAINS } from './domains.js';

export type ModelOwner = { kind: 'system' } | { kind: 'plugin'; name: string };

/** Indexes every model has (the seed); `name` is the selector alias of `metadata.name`. */
export const DEFAULT_INDEX_NAMES: readonly string[] = Object.freeze([
  'metadata.name',
  'metadata.labels',
  'metadata.creationTimestamp',
  'metadata.deletionTimestamp',
  'name',
]);

export interface NormalizedIndex {
  name: string;
  order: 'ASC' | 'DESC';
  unique: boolean;
  /** Absent: the value is read from the field path `name` (see IndexSpec). */
  indexFunc?: IndexSpec['indexFunc'];
}

export interface NormalizedModel {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  /** `<group>/<version>`, or `<version>` for the core group. */
  apiVersion: string;
  /** Store key: `<group>/<plural>`, or `<plural>` for the core group. */
  resource: string;
  owner: ModelOwner;
  schema: JsonSchema | undefined;
  /** Declared indexes only; the defaults are implied. */
  indexes: NormalizedIndex[];
  statusSubresource: boolean;
  /** Finalizers svc adds to every new object (ModelDefinition.finalizers; empty when none are declared). */
  finalizers: string[];
  /** Discovery's short names and categories (empty when none are declared). */
  shortNames: string[];
  categories: string[];
  /** Declared table columns, in order (the table adds Name first and Age last). */
  printerColumns: PrinterColumn[];
  validate: ObjectValidator;
  /** Query parameters its DELETE takes beyond Kubernetes' own (the service's models only; none for a plugin's). */
  deleteParameters?: readonly DeleteParameter[];
}

/**
 * A choice a model's DELETE takes as a query parameter (a Plugin's `data`: keep or delete what it made), recorded as an
 * annotation in the deletion's own write, so whatever finishes the deletion (a finalizer's controller) reads it there.
 */
export interface DeleteParameter {
  name: string;
  /** The annotation the chosen value is written to. */
  annotation: string;
  values: readonly string[];
  /** Written when the request names no value. */
  default: string;
  description: string;
}

const VERSION_PATTERN = /^v[0-9]+((alpha|beta)[0-9]+)?$/;
const KIND_PATTERN = /^[A-Z][A-Za-z0-9]*$/;
const RESOURCE_NAME_PATTERN = /^[a-z][a-z0-9]*$/;
/** An index without indexFunc reads the field path in its name, so the name must be one. */
const FIELD_PATH_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$-]*(\.[A-Za-z_$][A-Za-z0-9_$-]*)*$/;
const MAX_SEGMENT_LENGTH = 63;

export function normalizeModelDefinition(def: ModelDefinition, owner: ModelOwner): NormalizedModel {
  if (def === null || typeof def !== 'object') throw new Error('model definition must be an object');
  const label = describe(def);
  const problems: string[] = [];
  const text = (field: keyof ModelDefinition): string => {
    const value = def[field];
    if (typeof value === 'string') return value;
    problems.push(`${field} must be a string`);
    return '';
  };
  const group = text('group');
  const version = text('version');
  const kind = text('kind');
  const plural = text('plural');
  const singular = def.singular === undefined ? kind.toLowerCase() : text('singular');

  problems.push(...groupProblems(group, owner));
  if (version && !VERSION_PATTERN.test(version))
    problems.push(`version "${version}" must look like v1, v1alpha1 or v2beta3`);
  if (kind && !KIND_PATTERN.test(kind))
    problems.push(`kind "${kind}" must start with an uppercase letter and contain only letters and digits`);
  // A defaulted singular is only checked when the kind it comes from is valid, so one mistake gives one message.
  const names = [['plural', plural]] as [string, string][];
  if (def.singular !== undefined || KIND_PATTERN.test(kind)) names.push(['singular', singular]);
  for (const [field, value] of names) {
    if (!RESOURCE_NAME_PATTERN.test(value) || value.length > MAX_SEGMENT_LENGTH) {
      problems.push(
        `${field} "${value}" must be lowercase letters and digits starting with a letter, at most ${MAX_SEGMENT_LENGTH} characters`,
      );
    }
  }
  if (
    def.schema !== undefined &&
    (def.schema === null || typeof def.schema !== 'object' || Array.isArray(def.schema))
  ) {
    problems.push('schema must be a JSON Schema object');
  }
  if (def.statusSubresource !== undefined && typeof def.statusSubresource !== 'boolean') {
    problems.push('statusSubresource must be a boolean');
  }
  const indexes = normalizeIndexes(def.indexes, problems);
  // The same rules as an object's own metadata.finalizers, named as the definition's field.
  for (const { path, message } of finalizerErrors(def.finalizers, '')) {
    problems.push(`finalizers${path.replace(/\/(\d+)/, '[$1]')} ${message}`);
  }
  const shortNames = normalizeResourceNames(def.shortNames, 'shortNames', problems);
  const categories = normalizeResourceNames(def.categories, 'categories', problems);
  const printerColumns = normalizePrinterColumns(def.printerColumns, problems);
  if (problems.length > 0) throw new Error(`invalid model ${label}: ${problems.join('; ')}`);

  return {
    group,
    version,
    kind,
    plural,
    singular,
    apiVersion: group === '' ? version : `${group}/${version}`,
    resource: group === '' ? plural : `${group}/${plural}`,
    owner,
    schema: def.schema,
    indexes,
    statusSubresource: def.statusSubresource === true,
    finalizers: Array.isArray(def.finalizers) ? [...def.finalizers] : [],
    shortNames,
    categories,
    printerColumns,
    // compileModelSchema names the model and the reason itself when the schema does not compile.
    validate: compileModelSchema(def),
  };
}

function groupProblems(group: string, owner: ModelOwner): string[] {
  if (group !== '') {
    const problems = subdomainProblems(group).map((m) => `group "${group}" ${m}`);
    if (problems.length > 0) return problems;
  }
  if (owner.kind === 'system') return [];
  if (!isValidPluginName(owner.name)) {
    return RESERVED_PLUGIN_NAMES.includes(owner.name)
      ? [`plugin name "${owner.name}" is reserved for the service`]
      : [`plugin name "${owner.name}" is not a valid plugin name`];
  }
  if (group === '')
    return [`the empty (core) group is reserved for the service; plugin "${owner.name}" must use a group it owns`];
  if (!isGroupOwnedBy(group, owner.name)) {
    const own = pluginServiceGroups(owner.name).join(', ');
    return [
      `group "${group}" is reserved for the service; plugin "${owner.name}" may use a domain of its own or ${own}`,
    ];
  }
  return [];
}

function normalizeIndexes(indexes: unknown, problems: string[]): NormalizedIndex[] {
  if (indexes === undefined) return [];
  if (!Array.isArray(indexes)) {
    problems.push('indexes must be an array');
    return [];
  }
  const names = new Set<string>();
  const result: NormalizedIndex[] = [];
  indexes.forEach((raw: unknown, i) => {
    if (raw === null || typeof raw !== 'object') {
      problems.push(`indexes[${i}] must be an object`);
      return;
    }
    const spec = raw as IndexSpec;
    if (typeof spec.name !== 'string' || spec.name === '') {
      problems.push(`indexes[${i}].name must be a non-empty string`);
      return;
    }
    const at = `index "${spec.name}"`;
    if (DEFAULT_INDEX_NAMES.includes(spec.name)) problems.push(`${at} is declared for every model already`);
    else if (names.has(spec.name)) problems.push(`${at} is declared twice`);
    names.add(spec.name);
    if (spec.order !== undefined && spec.order !== 'ASC' && spec.order !== 'DESC') {
      problems.push(`${at}: order must be ASC or DESC`);
    }
    if (spec.unique !== undefined && typeof spec.unique !== 'boolean') problems.push(`${at}: unique must be a boolean`);
    if (spec.indexFunc !== undefined && typeof spec.indexFunc !== 'function')
      problems.push(`${at}: indexFunc must be a function`);
    if (spec.indexFunc === undefined && !FIELD_PATH_PATTERN.test(spec.name)) {
      problems.push(`${at} has no indexFunc, so its name must be a field path such as spec.slug`);
    }
    const index: NormalizedIndex = { name: spec.name, order: spec.order ?? 'ASC', unique: spec.unique === true };
    if (typeof spec.indexFunc === 'function') index.indexFunc = spec.indexFunc;
    result.push(index);
  });
  return result;
}

function describe(def: ModelDefinition): string {
  const kind = typeof def.kind === 'string' && def.kind ? def.kind : '<no kind>';
  const group = typeof def.group === 'string' ? def.group : '?';
  const version = typeof def.version === 'string' ? def.version : '?';
  return `${kind} (${group ? `${group}/` : ''}${version})`;
}
