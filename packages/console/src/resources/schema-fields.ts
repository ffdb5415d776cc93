/**
 * The fields of an object's form, read from its model's JSON Schema: strings, numbers, integers, booleans, enums,
 * nested objects and arrays of scalars become inputs; anything else (references, unions, maps, arrays of objects) is
 * left to the YAML editor. Pure.
 */
import { cloneJson } from './merge-patch.js';

export type Schema = Record<string, unknown>;

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'object' | 'list' | 'yaml';

export interface FormField {
  /** Keys from the object's root, e.g. `['spec', 'age']`. */
  path: string[];
  /** The JSON Pointer svc names in validation errors, e.g. `/spec/age`. */
  pointer: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  options?: Array<string | number | boolean>;
  /** A list's item kind (`string`, `number`, `integer`, `boolean`). */
  itemKind?: 'string' | 'number' | 'integer' | 'boolean';
  children?: FormField[];
  minimum?: number;
  maximum?: number;
}

const SCALARS = ['string', 'number', 'integer', 'boolean'] as const;
type Scalar = (typeof SCALARS)[number];

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const concrete = type.filter((t) => t !== 'null');
    if (concrete.length === 1) return concrete[0] as string;
  }
  return undefined;
}

/** `spec.gender` → "Gender"; `otherPerson` → "Other person". */
export function labelOf(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const pointerOf = (path: string[]) => `/${path.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** One property's field. */
export function fieldOf(schema: Schema, path: string[], required: boolean): FormField {
  const key = path[path.length - 1] ?? '';
  const base = {
    path,
    pointer: pointerOf(path),
    label: labelOf(key),
    required,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
  };
  if (Array.isArray(schema.enum) && schema.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
    return { ...base, kind: 'enum', options: schema.enum as Array<string | number | boolean> };
  }
  if ('$ref' in schema || 'oneOf' in schema || 'anyOf' in schema || 'allOf' in schema) return { ...base, kind: 'yaml' };
  const type = typeOf(schema);
  if (type === 'object') {
    const properties = schema.properties as Record<string, Schema> | undefined;
    if (!properties || Object.keys(properties).length === 0) return { ...base, kind: 'yaml' };
    return { ...base, kind: 'object', children: fieldsOf(schema, path) };
  }
  if (type === 'array') {
    const itemType = typeOf((schema.items as Schema | undefined) ?? {});
    if (SCALARS.includes(itemType as Scalar)) return { ...base, kind: 'list', itemKind: itemType as Scalar };
    return { ...base, kind: 'yaml' };
  }
  if (SCALARS.includes(type as Scalar)) {
    return {
      ...base,
      kind: type as Scalar,
      ...(typeof schema.minimum === 'number' ? { minimum: schema.minimum } : {}),
      ...(typeof schema.maximum === 'number' ? { maximum: schema.maximum } : {}),
    };
  }
  return { ...base, kind: 'yaml' };
}

/** The fields of an object schema's properties, in declaration order. */
export function fieldsOf(schema: Schema, path: string[] = []): FormField[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([key, property]) =>
    fieldOf(property ?? {}, [...path, key], required.has(key)),
  );
}

/**
 * The form of a model's objects: the schema's top-level properties but `apiVersion`, `kind`, `metadata` (edited
 * apart) and, with a status subresource, `status` (the server ignores it on the main route).
 */
export function objectForm(schema: Schema | undefined, statusSubresource: boolean): FormField[] {
  if (!schema) return [];
  const skipped = new Set(['apiVersion', 'kind', 'metadata', ...(statusSubresource ? ['status'] : [])]);
  return fieldsOf(schema).filter((field) => !skipped.has(field.path[0]!));
}

/** The value at `path` of an object, undefined when a step is missing. */
export function valueAt(object: unknown, path: readonly string[]): unknown {
  let value = object;
  for (const key of path) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/**
 * `object` with `value` at `path` (objects made on the way); `undefined` removes the key, and an object left empty by
 * that is removed too, so clearing an optional field leaves no `{}` behind.
 */
export function withValueAt(object: Record<string, unknown>, path: readonly string[], value: unknown) {
  const result = cloneJson(object);
  const [head, ...rest] = path;
  if (head === undefined) return result;
  if (rest.length === 0) {
    if (value === undefined) delete result[head];
    else result[head] = value;
    return result;
  }
  const child = result[head];
  const next = withValueAt(
    child !== null && typeof child === 'object' ? (child as Record<string, unknown>) : {},
    rest,
    value,
  );
  if (Object.keys(next).length === 0 && value === undefined) delete result[head];
  else result[head] = next;
  return result;
}

/** Every field's JSON pointer, nested ones included: where the form shows svc's errors. */
export function pointersOf(fields: readonly FormField[]): string[] {
  return fields.flatMap((f) => [f.pointer, ...pointersOf(f.children ?? [])]);
}
