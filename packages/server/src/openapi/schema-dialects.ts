/**
 * A model's (or a route's) JSON Schema, draft 2020-12, turned into component schemas of an OpenAPI document. Pure.
 *
 * Both dialects: the schema becomes the component `name`; its `$defs` (or `definitions`) become components of their own
 * (`<name>.<def>`), and every local `$ref` is rewritten to point into `#/components/schemas` (`#` is the schema itself).
 * OpenAPI 3.1 speaks 2020-12, so nothing else changes. OpenAPI 3.0 speaks an older subset, so each node is translated:
 * a type list becomes `nullable` or `anyOf`, `const` an `enum` of one, `examples` an `example`, a numeric
 * `exclusiveMinimum` the boolean form, `true`/`false` schemas `{}` and `{not: {}}`, and a `$ref` with siblings an
 * `allOf`. Keywords 3.0 lacks (`if`, `dependentRequired`, `prefixItems`, `patternProperties`, …) are left out: they still
 * hold on the server, which validates with the full schema; the document only says less.
 */

export type Dialect = '3.0' | '3.1';
type Schema = Record<string, unknown>;

/** Keywords a 3.0 Schema Object has, copied as they are (values that are schemas are handled below). */
const KEPT_30 = new Set([
  'title',
  'description',
  'default',
  'multipleOf',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'enum',
  'format',
  'readOnly',
  'writeOnly',
  'deprecated',
  'externalDocs',
  'example',
]);

/** The component schemas for `schema` under `name`: the schema itself first, then its definitions. */
export function schemaComponents(schema: unknown, name: string, dialect: Dialect): Record<string, Schema> {
  const root = isObject(schema) ? schema : {};
  const defs = { ...asObject(root.definitions), ...asObject(root.$defs) };
  const { $defs: _defs, definitions: _definitions, ...body } = root;
  const rewrite = (ref: string) => rewriteRef(ref, name);
  // 3.1 keeps a `true`/`false` definition as it is: a boolean is a schema there.
  const convert = (node: unknown) => (dialect === '3.0' ? to30(node, rewrite) : (to31(node, rewrite) as Schema));
  const components: Record<string, Schema> = { [name]: convert(body) };
  for (const [def, value] of Object.entries(defs)) components[`${name}.${componentKey(def)}`] = convert(value);
  return components;
}

/** Where a local reference of the schema named `name` points once it is a component. Pure. */
export function rewriteRef(ref: string, name: string): string {
  if (ref === '#' || ref === '#/') return `#/components/schemas/${name}`;
  const defs = /^#\/(?:\$defs|definitions)\/([^/]+)(.*)$/.exec(ref);
  if (defs) return `#/components/schemas/${name}.${componentKey(decodeToken(defs[1]!))}${defs[2]}`;
  if (ref.startsWith('#/')) return `#/components/schemas/${name}${ref.slice(1)}`;
  return ref;
}

/** A component key: OpenAPI allows letters, digits, `.`, `-` and `_`. */
export function componentKey(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '_');
}

function to31(node: unknown, rewrite: (ref: string) => string): Schema | boolean {
  if (Array.isArray(node)) return node.map((n) => to31(n, rewrite)) as unknown as Schema;
  if (!isObject(node)) return node as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out[key] = rewrite(value);
    else if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples' || key === 'example')
      out[key] = value;
    else out[key] = isObject(value) || Array.isArray(value) ? to31(value, rewrite) : value;
  }
  return out;
}

function to30(node: unknown, rewrite: (ref: string) => string): Schema {
  if (node === true || node === undefined) return {};
  if (node === false) return { not: {} };
  if (!isObject(node)) return {};
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (KEPT_30.has(key) || key.startsWith('x-')) out[key] = value;
  }
  if (Array.isArray(node.examples) && node.examples.length > 0 && out.example === undefined)
    out.example = node.examples[0];
  if (node.const !== undefined) out.enum = [node.const];
  if (Array.isArray(node.required) && node.required.length > 0) out.required = [...new Set(node.required)];
  exclusiveBound(node, out, 'exclusiveMinimum', 'minimum');
  exclusiveBound(node, out, 'exclusiveMaximum', 'maximum');
  Object.assign(out, types30(node.type));

  const sub = (value: unknown) => to30(value, rewrite);
  if (isObject(node.properties)) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, sub(v)]));
  }
  if (typeof node.additionalProperties === 'boolean') out.additionalProperties = node.additionalProperties;
  else if (isObject(node.additionalProperties)) out.additionalProperties = sub(node.additionalProperties);
  if (node.items !== undefined) out.items = sub(node.items);
  else if (out.type === 'array') out.items = {};
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (Array.isArray(list) && list.length > 0) out[key] = [...(asArray(out[key]) ?? []), ...list.map(sub)];
  }
  if (node.not !== undefined) out.not = sub(node.not);

  if (typeof node.$ref === 'string') {
    const ref = { $ref: rewrite(node.$ref) };
    // A 3.0 reference ignores its siblings, so a reference with anything beside it is one member of an allOf.
    if (Object.keys(out).length === 0) return ref;
    out.allOf = [ref, ...(asArray(out.allOf) ?? [])];
  }
  return out;
}

/** 2020-12 `type` (a name or a list of names, `null` among them) as 3.0 `type`, `nullable` and `anyOf`. */
function types30(type: unknown): Schema {
  const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type.map(String) : [];
  const nullable = names.includes('null');
  const others = names.filter((n) => n !== 'null');
  const out: Schema = nullable ? { nullable: true } : {};
  if (others.length === 1) out.type = others[0];
  else if (others.length > 1) out.anyOf = others.map((t) => ({ type: t }));
  else if (nullable) out.enum = [null];
  return out;
}

function exclusiveBound(node: Schema, out: Schema, exclusive: string, inclusive: string): void {
  const bound = node[exclusive];
  if (typeof bound !== 'number') return;
  const current = out[inclusive];
  const tighter = exclusive === 'exclusiveMinimum' ? bound >= Number(current) : bound <= Number(current);
  if (typeof current !== 'number' || tighter) {
    out[inclusive] = bound;
    out[exclusive] = true;
  }
}

function decodeToken(token: string): string {
  let text = token;
  try {
    text = decodeURIComponent(token);
  } catch {
    // kept as written
  }
  return text.replace(/~1/g, '/').replace(/~0/g, '~');
}

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function asObject(value: unknown): Schema {
  return isObject(value) ? value : {};
}

function asArray(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}
