/**
 * What the SQL dialects share: the table rows they read, their mapping to the interface's records, and the checks on
 * arguments that must behave the same whatever the database.
 */
import { CREDENTIALS_RECORDS, SESSIONS_RECORDS, TOKEN_DIGESTS_RECORDS } from '@svc/plugin-api';
import type { Change, ChangeType, StoredRecord } from './types.js';

/**
 * Resources whose records earlier versions kept as objects, in the history: authentication's password hashes,
 * sessions and token digests. Opening a store moves them into the secret store under the same names as kinds (see
 * authn/internal-records.ts) and erases them and their events from the history.
 */
export const SECRET_RESOURCES_ONCE_IN_HISTORY: readonly string[] = Object.freeze([
  CREDENTIALS_RECORDS,
  SESSIONS_RECORDS,
  TOKEN_DIGESTS_RECORDS,
]);

/** Rows per `scan` batch when the caller does not say. */
export const DEFAULT_SCAN_BATCH_SIZE = 500;

/** An `objects` row as both dialects select it. */
export interface ObjectRow {
  resource: string;
  name: string;
  revision: number;
  value: Buffer;
}

/** An `events` row as both dialects select it. */
export interface EventRow {
  revision: number;
  type: string;
  resource: string;
  name: string;
  prev_revision: number;
  value: Buffer;
  prev_value: Buffer | null;
}

/** The two counters kept in the single `meta` row. */
export interface MetaRow {
  /** Revision of the latest write. */
  revision: number;
  /** Highest revision dropped by compaction: the oldest a watch may resume from. */
  compacted: number;
}

export function toRecord(row: ObjectRow): StoredRecord {
  return { resource: row.resource, name: row.name, revision: row.revision, value: row.value };
}

export function toChange(row: EventRow): Change {
  return {
    revision: row.revision,
    type: row.type as ChangeType,
    resource: row.resource,
    name: row.name,
    value: row.value,
    prevRevision: row.prev_revision,
    ...(row.prev_value ? { prevValue: row.prev_value } : {}),
  };
}

/** The records found, in the order of `names` (the query returns them in whatever order the database likes). */
export function inNameOrder(rows: readonly ObjectRow[], names: readonly string[]): StoredRecord[] {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const records: StoredRecord[] = [];
  for (const name of names) {
    const row = byName.get(name);
    if (row) records.push(toRecord(row));
  }
  return records;
}

/** The encoder's bytes, refused when they are not a Buffer (a database would store them as text or fail later). */
export function checkEncoded(value: unknown): Buffer {
  if (!Buffer.isBuffer(value)) throw new TypeError('the encoder must return a Buffer');
  return value;
}

export function checkPositiveInteger(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${what} must be a positive integer, got ${value}`);
  }
  return value;
}

export function checkKeep(keep: number): number {
  if (!Number.isSafeInteger(keep) || keep < 0) throw new RangeError(`keep must be a non-negative integer, got ${keep}`);
  return keep;
}

export function checkRevision(revision: number): number {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw new RangeError(`revision must be a non-negative integer, got ${revision}`);
  }
  return revision;
}
