/**
 * Checks an object against its model's JSON Schema (draft 2020-12) in the browser, with the wording svc's own
 * validation uses (packages/server/src/objects/schema.ts), so the editor says what a save would say.
 *
 * @cfworker/json-schema rather than Ajv, which svc uses: Ajv compiles a schema into code with `new Function`, which
 * the console's Content-Security-Policy (no 'unsafe-eval') refuses; this validator interprets the schema instead.
 * Pure.
 */
import { type OutputUnit, Validator } from '@cfworker/json-schema';

export type Schema = Record<string, unknown>;

/** One failed check: the JSON Pointer of the value and what is wrong with it. */
export interface SchemaProblem {
  pointer: string;
  message: string;
}

/** Fields every object has; svc checks them itself, so a model's schema neither requires nor constrains them. */
const COMMON_FIELDS = ['apiVersion', 'kind', 'metadata'];

/**
 * The schema as svc applies it: its root (and a local `$ref` the root delegates to) accepts apiVersion, kind and
 * metadata as anything and does not require them.
 */
export function preparedSchema(schema: Schema): Schema {
  // A JSON round trip, not structuredClone: the schema may come wrapped in a Vue proxy, which cannot be cloned.
  const root = JSON.parse(JSON.stringify(schema)) as Schema;
  const seen = new Set<unknown>();
  let target: Schema | undefined = root;
  while (target && !seen.has(target)) {
    seen.add(target);
    const properties = target.properties;
    if (properties === undefined || (typeof properties === 'object' && properties !== null)) {
      target.properties = {
        ...(properties as Schema | undefined),
        ...Object.fromEntries(COMMON_FIELDS.map((f) => [f, true])),
      };
    }
    if (Array.isArray(target.required)) target.required = target.required.filter((f) => !COMMON_FIELDS.includes(f));
    target = typeof target.$ref === 'string' ? resolveLocal(root, target.$ref) : undefined;
  }
  return root;
}

function resolveLocal(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Schema)[decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node !== null && typeof node === 'object' && !Array.isArray(node) ? (node as Schema) : undefined;
}

/** Keywords that only say a part below them failed; the part itself is reported too. */
const SUMMARIES = new Set([
  'properties',
  'items',
  'prefixItems',
  '$ref',
  '$dynamicRef',
  'allOf',
  'additionalProperties',
  'unevaluatedProperties',
  'dependentSchemas',
  'then',
  'else',
  'if',
]);

const escapeKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** One validator error in svc's words, or undefined for a summary of others. */
function problemOf(unit: OutputUnit): SchemaProblem | undefined {
  if (SUMMARIES.has(unit.keyword)) return undefined;
  const pointer = unit.instanceLocation.replace(/^#/, '');
  const text = unit.error;
  const quoted = [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
  switch (unit.keyword) {
    case 'required':
      return { pointer: `${pointer}/${escapeKey(quoted[0] ?? '')}`, message: 'is required' };
    case 'false':
      // A property the schema's `additionalProperties: false` (or `unevaluatedProperties`) does not allow.
      return { pointer, message: 'is not a known field' };
    case 'type':
      return { pointer, message: `must be ${quoted.slice(1).join(' or ')}` };
    case 'enum': {
      const allowed = text.slice(text.indexOf('['), text.lastIndexOf(']') + 1);
      try {
        const values = JSON.parse(allowed) as unknown[];
        return { pointer, message: `must be one of: ${values.map((v) => JSON.stringify(v)).join(', ')}` };
      } catch {
        return { pointer, message: text };
      }
    }
    case 'maxLength':
    case 'minLength': {
      const limit = /[<>] (\d+)\)/.exec(text)?.[1];
      const bound = unit.keyword === 'maxLength' ? 'at most' : 'at least';
      return { pointer, message: limit ? `must be ${bound} ${limit} characters long` : text };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const limit = /than (?:or equal to )?\s*(\S+)\.$/.exec(text)?.[1];
      const sign = { minimum: '>=', maximum: '<=', exclusiveMinimum: '>', exclusiveMaximum: '<' }[unit.keyword];
      return { pointer, message: limit ? `must be ${sign} ${limit}` : text };
    }
    default:
      return { pointer, message: text };
  }
}

/** One validator per schema: the editor checks the same schema at every pause in typing. */
const validators = new WeakMap<Schema, Validator>();

/** What is wrong with `object` by `schema`, each part once, in the order the validator found them. */
export function checkAgainstSchema(object: unknown, schema: Schema): SchemaProblem[] {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(preparedSchema(schema) as never, '2020-12', false);
    validators.set(schema, validator);
  }
  const result = validator.validate(object);
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const unit of result.errors) {
    const problem = problemOf(unit);
    const key = problem && `${problem.pointer}\u0000${problem.message}`;
    if (!problem || !key || seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}
