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

/** A model page's table: which page, how sorted and filtered. */
export interface ListState {
  page: number;
  size: number;
  sort?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** Rows a model's page shows unless its URL says otherwise. */
export const DEFAULT_PAGE_SIZE = 20;

/** The URL query of a table's state, leaving out what is the default. */
export function queryOf(state: ListState): Record<string, string> {
  const query: Record<string, string> = {};
  if (state.page > 1) query.page = String(state.page);
  if (state.size !== DEFAULT_PAGE_SIZE) query.size = String(state.size);
  if (state.sort) query.sort = state.sort;
  if (state.labelSelector) query.labelSelector = state.labelSelector;
  if (state.fieldSelector) query.fieldSelector = state.fieldSelector;
  return query;
}

/** A table's state from a URL query (anything unreadable is the default). */
export function stateOf(query: Record<string, unknown>): ListState {
  const text = (key: string) =>
    typeof query[key] === 'string' && query[key] !== '' ? (query[key] as string) : undefined;
  const whole = (key: string, fallback: number) => {
    const n = Number(text(key));
    return Number.isSafeInteger(n) && n >= 1 ? n : fallback;
  };
  return {
    page: whole('page', 1),
    size: whole('size', DEFAULT_PAGE_SIZE),
    sort: text('sort'),
    labelSelector: text('labelSelector'),
    fieldSelector: text('fieldSelector'),
  };
}

/** The filter rows a field selector reads as (`a=b,c!=d`). */
export function fieldFiltersOf(selector: string | undefined): FieldFilter[] {
  if (!selector) return [];
  return selector.split(',').flatMap((term) => {
    const match = /^([^=!]+)(!=|==|=)(.*)$/.exec(term.trim());
    if (!match) return [];
    return [{ index: match[1]!, operator: match[2] === '!=' ? '!=' : '=', value: match[3]! } as FieldFilter];
  });
}
