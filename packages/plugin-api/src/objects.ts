import type { KIND } from './vocabulary.js';

/** The common shape of every object svc serves: the seed's "Custom model object" table. */
export interface ObjectMeta {
  name: string;
  /** Server fills `name` from this prefix plus random characters when `name` is absent. */
  generateName?: string;
  /** RFC 3339 UTC; set at create, never changes. */
  creationTimestamp?: string;
  /** Optimistic-lock version: 0 at create, +1 on every write. */
  version?: number;
  /** Set only by a delete; the object stays readable until its finalizers are empty. */
  deletionTimestamp?: string | null;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Store revision of the object's last write (a string, as Kubernetes clients expect). */
  resourceVersion?: string;
  /** Set at create, never changes. */
  uid?: string;
  /** Who set which fields through server-side apply (docs/api.md "Server-side apply"); written only by svc. */
  managedFields?: ManagedFieldsEntry[];
}

/** One field manager's entry, as Kubernetes' `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  /** The fields owned, as nested `f:<name>` keys, `{}` at each owned field. */
  fieldsV1: Record<string, unknown>;
}

export interface ExtensionObject<Spec = Record<string, unknown>, Status = Record<string, unknown>> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
  [extra: string]: unknown;
}

/** The paging envelope of a list (docs/api.md "Lists"). */
export interface ListResult<T = ExtensionObject> {
  page: number;
  size: number;
  total: number;
  items: T[];
  first: boolean;
  last: boolean;
  hasNext: boolean;
  hasPrevious: boolean;
  totalPages: number;
}

export interface ListOptions {
  /** 1-based page number. */
  page?: number;
  /** Objects per page; absent means all objects. */
  size?: number;
  /** `<indexName>,asc|desc` terms, applied in order. */
  sort?: string | string[];
  labelSelector?: string | string[];
  fieldSelector?: string | string[];
}

/** Any object, whatever its spec and status types: the constraint of generic APIs. */
export type AnyExtensionObject = ExtensionObject<object, object>;

/** The Kubernetes Status a watch's ERROR event carries (410 when its revision was compacted away). */
export interface WatchStatus {
  kind: typeof KIND.Status;
  apiVersion: 'v1';
  status: 'Failure';
  code: number;
  reason: string;
  message: string;
}
