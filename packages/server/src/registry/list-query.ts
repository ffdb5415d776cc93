import { badRequest } from '@svc/plugin-api';
import { parseFieldSelector, parseLabelSelector, parseSort } from '../index/selectors.js';
import type { ListQuery } from './object-service.js';

type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw badRequest(`query parameter "${name}" may be given only once`);
    return value[0];
  }
  return value;
}

function integer(query: Query, name: string, min: number): number | undefined {
  const raw = single(query, name);
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw)) throw badRequest(`query parameter "${name}" must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw badRequest(`query parameter "${name}" must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

/** Parses the list parameters of docs/api.md "Lists" (page, size, sort, labelSelector, fieldSelector). */
export function parseListQuery(query: Query): ListQuery {
  const page = integer(query, 'page', 1);
  const size = integer(query, 'size', 0);
  return {
    labels: parseLabelSelector(query.labelSelector),
    fields: parseFieldSelector(query.fieldSelector),
    sort: parseSort(query.sort),
    page: page ?? 1,
    // size 0 or absent: every match (the seed's default), as one page.
    size: size === 0 ? undefined : size,
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
