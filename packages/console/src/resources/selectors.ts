/** The resource browser's filters as svc's list parameters (docs/api.md "Lists"). Pure. */

export interface FieldFilter {
  index: string;
  operator: '=' | '!=';
  value: string;
}

/** `spec.gender=FEMALE`, one term per filter with an index chosen; empty when none. */
export function fieldSelectorOf(filters: readonly FieldFilter[]): string | undefined {
  const terms = filters.filter((f) => f.index !== '').map((f) => `${f.index}${f.operator}${f.value.trim()}`);
  return terms.length > 0 ? terms.join(',') : undefined;
}

/** The sort parameter of a table sorted by `field` (`1` ascending, `-1` descending); none: the server's default. */
export function sortOf(field: string | undefined, order: number | undefined): string | undefined {
  if (!field) return undefined;
  return `${field},${order === -1 ? 'desc' : 'asc'}`;
}
