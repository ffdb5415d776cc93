import type { Query } from './http.js';
import type { ListQuery, ResourceRef, WatchOptions } from './types.js';

/** The collection path of a resource. Pure. */
export function collectionPath({ group, version, plural }: ResourceRef): string {
  const base = group === '' ? `/api/${enc(version)}` : `/apis/${enc(group)}/${enc(version)}`;
  return `${base}/${enc(plural)}`;
}

export function objectPath(ref: ResourceRef, name: string): string {
  if (!name) throw new TypeError('an object name is required');
  return `${collectionPath(ref)}/${enc(name)}`;
}

/** A list's query parameters; `undefined` options are left out. Pure. */
export function listQuery(options: ListQuery = {}): Query {
  return {
    page: options.page,
    size: options.size,
    sort: asArray(options.sort),
    labelSelector: asArray(options.labelSelector),
    fieldSelector: asArray(options.fieldSelector),
    limit: options.limit,
    continue: options.continue,
  };
}

/** A watch's query parameters over HTTP streaming. Pure. */
export function watchQuery(options: WatchOptions = {}): Query {
  return {
    watch: true,
    resourceVersion: options.resourceVersion,
    labelSelector: asArray(options.labelSelector),
    fieldSelector: asArray(options.fieldSelector),
    allowWatchBookmarks: options.allowWatchBookmarks || undefined,
    timeoutSeconds: options.timeoutSeconds,
  };
}

function asArray(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

const enc = encodeURIComponent;
