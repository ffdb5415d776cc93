/**
 * The query parameters of a watch (docs/api.md "Lists" and "Watch"), parsed into plain data. Pure.
 */

import { badRequest } from '@svc/plugin-api';
import {
  type FieldRequirement,
  type LabelRequirement,
  parseFieldSelector,
  parseLabelSelector,
} from '../index/selectors.js';
import { type QueryParameters, single } from '../registry/list-query.js';

export interface WatchRequest {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  /** Resume after this revision; undefined (or 0 given) = start with the current objects as ADDED. */
  resourceVersion?: number;
  allowWatchBookmarks: boolean;
  /** End the watch after this long; undefined = never. */
  timeoutSeconds?: number;
}

type Query = QueryParameters;

function wholeNumber(query: Query, name: string): number | undefined {
  const raw = single(query, name);
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    throw badRequest(`query parameter "${name}" must be a whole number, got "${raw}"`);
  }
  return value;
}

function flag(query: Query, name: string): boolean {
  const raw = single(query, name);
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw badRequest(`query parameter "${name}" must be true or false, got "${raw}"`);
}

export function parseWatchRequest(query: Query): WatchRequest {
  const resourceVersion = wholeNumber(query, 'resourceVersion');
  const timeoutSeconds = wholeNumber(query, 'timeoutSeconds');
  return {
    labels: parseLabelSelector(query.labelSelector as string | string[] | undefined),
    fields: parseFieldSelector(query.fieldSelector as string | string[] | undefined),
    resourceVersion: resourceVersion === 0 ? undefined : resourceVersion,
    allowWatchBookmarks: flag(query, 'allowWatchBookmarks'),
    timeoutSeconds: timeoutSeconds === 0 ? undefined : timeoutSeconds,
  };
}
