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

/**
 * Parses the list parameters of a query string (docs/api.md "Lists": page, size, sort, labelSelector, fieldSelector),
 * and Kubernetes' `limit`/`continue` paging, which reads as `size` and the page its continue token names.
 */
export function parseListQuery(query: QueryParameters): IndexQuery {
  const chunked = query.limit !== undefined || query.continue !== undefined;
  if (chunked && (query.page !== undefined || query.size !== undefined)) {
    throw badRequest('page with size, or limit with continue: a list takes one kind of paging, not both');
  }
  const token = single(query, 'continue');
  return listQuery({
    page: chunked ? (token ? pageOfContinue(token) : 1) : integer(query, 'page', 1),
    size: chunked ? integer(query, 'limit', 0) : integer(query, 'size', 0),
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

/**
 * A continue token: the page that follows, opaque to clients. The list is read again at that page (not a snapshot of
 * the first page's revision), so objects written meanwhile may shift between pages.
 */
export function continueToken(page: number): string {
  return Buffer.from(JSON.stringify({ page })).toString('base64url');
}

function pageOfContinue(token: string): number {
  try {
    const { page } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { page?: unknown };
    if (typeof page === 'number' && Number.isSafeInteger(page) && page >= 1) return page;
  } catch {
    // Refused below.
  }
  throw badRequest('the continue token is not one this server gave; list again without it');
}
