import type { ListOptions } from '@svc/plugin-api';
import { badRequest } from '@svc/plugin-api';
import type { IndexQuery } from '../index/model-index.js';
import { parseFieldSelector, parseLabelSelector, parseSort } from '../index/selectors.js';

/** A request's query string, parsed (repeated keys become arrays). */
export type QueryParameters = Record<string, string | string[] | undefined>;

/** A parameter that may be given once: its value, undefined when absent, a 400 when repeated. */
export function single(query: QueryParameters, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw badRequest(`query parameter "${name}" may be given only once`);
    return value[0];
  }
  return value;
}

function integer(query: QueryParameters, name: string, min: number): number | undefined {
  const raw = single(query, name);
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw)) throw badRequest(`query parameter "${name}" must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw badRequest(`query parameter "${name}" must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

/** Parses the list parameters of a query string (docs/api.md "Lists": page, size, sort, labelSelector, fieldSelector). */
export function parseListQuery(query: QueryParameters): IndexQuery {
  return listQuery({
    page: integer(query, 'page', 1),
    size: integer(query, 'size', 0),
    sort: query.sort,
    labelSelector: query.labelSelector,
    fieldSelector: query.fieldSelector,
  });
}

/** The same from typed options (the plugin client's): numbers stay numbers; selectors and sort are parsed once. */
export function listQuery(options: ListOptions): IndexQuery {
  for (const [name, value, min] of [
    ['page', options.page, 1],
    ['size', options.size, 0],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
      throw badRequest(`${name} must be an integer >= ${min}, got ${value}`);
    }
  }
  return {
    labels: parseLabelSelector(options.labelSelector),
    fields: parseFieldSelector(options.fieldSelector),
    sort: parseSort(options.sort),
    page: options.page ?? 1,
    // size 0 or absent: every match (the seed's default), as one page.
    size: options.size === 0 ? undefined : options.size,
  };
}

/** The paging fields of the list envelope (docs/api.md "Lists"); `size` undefined = every match on one page. */
export function pageInfo(total: number, page: number, size: number | undefined) {
  const totalPages = size ? Math.max(1, Math.ceil(total / size)) : 1;
  const current = size ? page : 1;
  return {
    page: current,
    size: size ?? 0,
    total,
    first: current === 1,
    last: current >= totalPages,
    hasNext: current < totalPages,
    hasPrevious: current > 1,
    totalPages,
  };
}

export type PageInfo = ReturnType<typeof pageInfo>;
