/**
 * Where audit events are kept to be asked about (docs/access-control.md "Audit"): beside the store, not in its
 * revisioned history, so auditing a write is not another write that watches see. Each replica appends its own events;
 * a query reads all of them, newest first. Events older than the retention are deleted.
 */

/** One event, with the fields queries filter on taken out of it. */
export interface AuditRecord {
  /** When the request was received (RFC 3339, UTC). */
  time: string;
  username: string;
  verb: string;
  resource: string;
  name: string;
  /** The event itself, as JSON. */
  event: string;
}

export interface AuditQuery {
  username?: string;
  verb?: string;
  resource?: string;
  name?: string;
  /** Events at or after this time (RFC 3339). */
  since?: string;
  /** Events before this time. */
  until?: string;
  limit: number;
  /** Where the previous page ended (AuditPage.next). */
  after?: AuditCursor;
}

/** A position in the newest-first order: an event's time and its row's id. */
export interface AuditCursor {
  time: string;
  id: number;
}

export interface AuditPage {
  /** The events, as JSON, newest first. */
  events: string[];
  /** Where the next page starts, when there may be one. */
  next?: AuditCursor;
}

export interface AuditStore {
  append(records: readonly AuditRecord[]): Promise<void>;
  query(query: AuditQuery): Promise<AuditPage>;
  /** Deletes the events received before `time`; answers how many. */
  deleteBefore(time: string): Promise<number>;
  close(): Promise<void>;
}
