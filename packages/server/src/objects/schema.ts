/**
 * Compiles a model's JSON Schema (draft 2020-12) into a validator returning FieldErrors.
 *
 * Memory: every model gets its own Ajv instance, referenced only by the returned function, so unregistering a model
 * (dropping the function) frees everything; Ajv's per-instance caches are strong Maps and would keep every schema
 * alive in a shared instance. Checking a schema against the 2020-12 meta-schema is what costs, so that is done by
 * one module-level instance that compiles only the meta-schema and never stores user schemas.
 */

import type { FieldError, JsonSchema, ModelDefinition } from '@svc/plugin-api';
import type { ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { joinPointer } from './pointer.js';

export type ObjectValidator = (object: unknown) => FieldError[];

/** Fields every object has; svc checks them itself, so the model's schema neither requires nor constrains them. */
const COMMON_FIELDS = ['apiVersion', 'kind', 'metadata'] as const;

// `ajv-formats` is CommonJS; under NodeNext its default import is the whole module, which carries `.default`.
const addFormats = addFormatsModule.default;

const AJV_OPTIONS: Options = {
  allErrors: true,
  useDefaults: true,
  strict: true,
  // `type: ["string", "null"]` is ordinary JSON Schema; strict mode would refuse it.
  allowUnionTypes: true,
};

let metaValidator: Ajv2020 | undefined;
function schemaChecker(): Ajv2020 {
  metaValidator ??= new Ajv2020({ ...AJV_OPTIONS, useDefaults: false });
  return metaValidator;
}

export function compileModelSchema(definition: ModelDefinition): ObjectValidator {
  const model = `model ${String(definition.kind)} (${definition.group ? `${definition.group}/` : ''}${String(definition.version)})`;
  if (definition.schema === undefined) return () => [];
  let prepared: JsonSchema;
  try {
    prepared = prepareSchema(definition.schema);
  } catch (error) {
    throw new Error(`${model}: invalid schema: ${(error as Error).message}`);
  }
  return compileBodySchema(prepared, model);
}

/**
 * Compiles a JSON Schema that describes a whole body as it is (a custom route's request body): unlike a model's
 * schema nothing is added to it. Throws, naming `what`, when the schema is not valid 2020-12 JSON Schema.
 */
export function compileBodySchema(schema: JsonSchema, what: string): ObjectValidator {
  let validate: ValidateFunction;
  try {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
      throw new Error('must be a JSON object');
    const checker = schemaChecker();
    if (!checker.validateSchema(schema)) throw new Error(checker.errorsText(checker.errors, { dataVar: 'schema' }));
    const ajv = new Ajv2020({ ...AJV_OPTIONS, validateSchema: false });
    addFormats(ajv);
    validate = ajv.compile(schema);
  } catch (error) {
    throw new Error(`${what}: invalid schema: ${(error as Error).message}`);
  }
  return (body) => {
    try {
      return validate(body) ? [] : toFieldErrors(validate.errors ?? []);
    } catch (error) {
      // A deeply nested body through a recursive `$ref` can exhaust the stack: the client's fault, not a 500.
      if (error instanceof RangeError) return [{ path: '', message: 'is nested too deeply to validate' }];
      throw error;
    }
  };
}

/**
 * A copy of the schema whose root (and the local `$ref` target a root may delegate to) accepts apiVersion, kind and
 * metadata as anything and does not require them. Recursive `$ref: "#"` lands on this root, so a nested whole object
 * (the seed's Person.spec.otherPerson) is treated the same way.
 */
function prepareSchema(schema: JsonSchema): JsonSchema {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw new Error('must be a JSON object');
  const root = structuredClone(schema) as Record<string, unknown>;
  const seen = new Set<unknown>();
  let target: Record<string, unknown> | undefined = root;
  while (target && !seen.has(target)) {
    seen.add(target);
    openCommonFields(target);
    target = typeof target.$ref === 'string' ? resolveLocal(root, target.$ref) : undefined;
  }
  return root;
}

function openCommonFields(schema: Record<string, unknown>): void {
  const type = schema.type;
  if (type === undefined) {
    if (schema.$ref === undefined) schema.type = 'object';
  } else if (type !== 'object' && !(Array.isArray(type) && type.includes('object'))) {
    throw new Error(`the schema describes the whole object, so its type must be "object" (is ${JSON.stringify(type)})`);
  }
  if (schema.$ref !== undefined && schema.properties === undefined && schema.type === undefined) return;
  const properties = schema.properties;
  if (
    properties !== undefined &&
    (properties === null || typeof properties !== 'object' || Array.isArray(properties))
  ) {
    return; // malformed; the meta-schema check reports it
  }
  schema.properties = {
    ...(properties as object | undefined),
    ...Object.fromEntries(COMMON_FIELDS.map((f) => [f, true])),
  };
  if (Array.isArray(schema.required)) {
    schema.required = schema.required.filter((name) => !(COMMON_FIELDS as readonly unknown[]).includes(name));
  }
}

/** Follows a same-document pointer such as `#/$defs/Person`; anything else is left to Ajv. */
function resolveLocal(root: Record<string, unknown>, ref: string): Record<string, unknown> | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== null && typeof node === 'object' && !Array.isArray(node)
    ? (node as Record<string, unknown>)
    : undefined;
}

/** Ajv's errors as `{path, message}`, pointing at the offending property itself where Ajv points at its parent. */
export function toFieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  const result: FieldError[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const mapped = mapError(error);
    if (!mapped) continue;
    const key = `${mapped.path}\u0000${mapped.message}`;
    if (!seen.has(key)) result.push(mapped);
    seen.add(key);
  }
  return result;
}

function mapError(error: ErrorObject): FieldError | undefined {
  const path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: joinPointer(path, String(params.missingProperty)), message: 'is required' };
    case 'dependentRequired':
      return {
        path: joinPointer(path, String(params.missingProperty)),
        message: `is required when "${String(params.property)}" is present`,
      };
    case 'additionalProperties':
      return { path: joinPointer(path, String(params.additionalProperty)), message: 'is not a known field' };
    case 'unevaluatedProperties':
      return { path: joinPointer(path, String(params.unevaluatedProperty)), message: 'is not a known field' };
    case 'enum':
      return {
        path,
        message: `must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return { path, message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'type':
      return { path, message: `must be ${String(params.type).split(',').join(' or ')}` };
    case 'maxLength':
      return { path, message: `must be at most ${String(params.limit)} characters long` };
    case 'minLength':
      return { path, message: `must be at least ${String(params.limit)} characters long` };
    case 'if':
      return undefined; // the failing `then`/`else` keywords are reported themselves
    default:
      return { path, message: error.message ?? `is invalid (${error.keyword})` };
  }
}
