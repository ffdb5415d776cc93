/**
 * The discovery and table parts of a model declaration, checked (docs/api.md "Tables"): short names and categories
 * (as a CRD's `names`), and printer columns (as its `additionalPrinterColumns`) with the simple JSONPath they read.
 */
import type { PrinterColumn } from '@svc/plugin-api';

const RESOURCE_NAME_PATTERN = /^[a-z][a-z0-9]*$/;
const COLUMN_TYPES = ['string', 'integer', 'number', 'boolean', 'date'];
/** `.a.b`, `.a[0].b`: a dotted path with optional array indexes, what printer columns of CRDs mostly use. */
const JSON_PATH_PATTERN = /^(\.[A-Za-z_$][A-Za-z0-9_$-]*(\[[0-9]+\])*)+$/;

export function normalizeResourceNames(value: unknown, field: string, problems: string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.push(`${field} must be an array of lowercase names`);
    return [];
  }
  for (const name of value) {
    if (typeof name !== 'string' || !RESOURCE_NAME_PATTERN.test(name)) {
      problems.push(`${field}: ${JSON.stringify(name)} must be lowercase letters and digits starting with a letter`);
    }
  }
  return [...new Set(value as string[])];
}

export function normalizePrinterColumns(value: unknown, problems: string[]): PrinterColumn[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.push('printerColumns must be an array');
    return [];
  }
  const names = new Set<string>(['name', 'age']);
  const columns: PrinterColumn[] = [];
  value.forEach((raw: unknown, i) => {
    const at = `printerColumns[${i}]`;
    if (raw === null || typeof raw !== 'object') {
      problems.push(`${at} must be an object`);
      return;
    }
    const column = raw as Partial<PrinterColumn>;
    const before = problems.length;
    if (typeof column.name !== 'string' || column.name.trim() === '')
      problems.push(`${at}.name must be a non-empty string`);
    else if (names.has(column.name.toLowerCase())) problems.push(`${at}: a column "${column.name}" is already shown`);
    if (!COLUMN_TYPES.includes(column.type as string))
      problems.push(`${at}.type must be one of ${COLUMN_TYPES.join(', ')}`);
    if (typeof column.jsonPath !== 'string' || !JSON_PATH_PATTERN.test(column.jsonPath)) {
      problems.push(`${at}.jsonPath must be a path such as .spec.age or .status.conditions[0].type`);
    }
    if (column.priority !== undefined && !(Number.isSafeInteger(column.priority) && column.priority >= 0)) {
      problems.push(`${at}.priority must be a non-negative integer`);
    }
    for (const field of ['description', 'format'] as const) {
      if (column[field] !== undefined && typeof column[field] !== 'string')
        problems.push(`${at}.${field} must be a string`);
    }
    if (problems.length > before) return;
    names.add(column.name!.toLowerCase());
    const normalized: PrinterColumn = { name: column.name!, type: column.type!, jsonPath: column.jsonPath! };
    if (column.description !== undefined) normalized.description = column.description;
    if (column.priority !== undefined) normalized.priority = column.priority;
    if (column.format !== undefined) normalized.format = column.format;
    columns.push(normalized);
  });
  return columns;
}

/** The value at a checked `jsonPath` of an object, or undefined when any step is missing. Pure. */
export function readJsonPath(object: unknown, jsonPath: string): unknown {
  let value: unknown = object;
  for (const step of jsonPath.slice(1).split('.')) {
    const [key, ...indexes] = step.split('[');
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key!] : undefined;
    for (const index of indexes) {
      value = Array.isArray(value) ? value[Number(index.slice(0, -1))] : undefined;
    }
  }
  return value;
}
