import type { AnyExtensionObject, ExtensionObject, ListOptions, ListResult, WatchStatus } from '@svc/plugin-api';

export type { AnyExtensionObject, ExtensionObject, ListOptions, ListResult };

/** Where a model is served: `/apis/<group>/<version>/<plural>` (the core group `""` under `/api/<version>`). */
export interface ResourceRef {
  group: string;
  version: string;
  plural: string;
}

/** A list's parameters (docs/api.md "Lists"): svc's page/size or Kubernetes' limit/continue, never both. */
export interface ListQuery extends ListOptions {
  limit?: number;
  continue?: string;
}

/** The list envelope: svc's paging fields plus the Kubernetes ones. */
export type ListEnvelope<T> = ListResult<T> & {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
};

/** Options every write takes: `dryRun` validates and admits the write without storing it. */
export interface WriteOptions {
  dryRun?: boolean;
}

/** Kubernetes' DeleteOptions preconditions: the delete is a 409 when the object no longer matches. */
export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'merge' | 'json';

/** One operation of an RFC 6902 JSON Patch. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export type { WatchStatus };

/** A watch event (docs/api.md "Watch"); ERROR events are thrown as SvcApiError rather than handed out. */
export type WatchEvent<T> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  | { type: 'BOOKMARK'; object: { apiVersion: string; kind: string; metadata: { resourceVersion: string } } };

export interface WatchOptions {
  /** Resume after this revision (a list's or an event's `metadata.resourceVersion`); absent = current objects first. */
  resourceVersion?: string;
  labelSelector?: string | string[];
  fieldSelector?: string | string[];
  /** Ask for BOOKMARK events carrying the latest revision (sent every minute). */
  allowWatchBookmarks?: boolean;
  /** The server ends the watch after this many seconds. */
  timeoutSeconds?: number;
  signal?: AbortSignal;
  /** Called once svc has accepted the watch (its answer began), before any event: from here on nothing is missed. */
  onOpen?: () => void;
}
