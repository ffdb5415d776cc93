import Database from 'better-sqlite3';
import type { AuditPage, AuditQuery, AuditRecord } from './audit-store.js';

/** The audit database's operations, synchronous: audit-sqlite-worker.ts runs them off the main thread. */
export interface AuditDatabase {
  append(records: readonly AuditRecord[]): void;
  query(query: AuditQuery): AuditPage;
  deleteBefore(time: string): number;
  close(): void;
}

/**
 * The embedded store's audit events: a database file of their own (`<data dir>/audit.db`, WAL), so appending them
 * never waits for, nor holds, the store's writers. Times are RFC 3339 UTC text, which sorts as time does.
 */
export function openAuditDatabase(path: string): AuditDatabase {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS audit_events (
    id INTEGER PRIMARY KEY,
    time TEXT NOT NULL,
    username TEXT NOT NULL,
    verb TEXT NOT NULL,
    resource TEXT NOT NULL,
    name TEXT NOT NULL,
    event TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS audit_events_time ON audit_events (time DESC, id DESC);
  CREATE INDEX IF NOT EXISTS audit_events_user ON audit_events (username, time DESC, id DESC);`);
  const insert = db.prepare(
    'INSERT INTO audit_events (time, username, verb, resource, name, event) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const appendAll = db.transaction((records: readonly AuditRecord[]) => {
    for (const r of records) insert.run(r.time, r.username, r.verb, r.resource, r.name, r.event);
  });
  const deleteBefore = db.prepare('DELETE FROM audit_events WHERE time < ?');
  return {
    append(records) {
      appendAll(records);
    },
    query(query: AuditQuery): AuditPage {
      const { clauses, values } = filters(query);
      const rows = db
        .prepare(
          `SELECT id, time, event FROM audit_events ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''} ` +
            'ORDER BY time DESC, id DESC LIMIT ?',
        )
        .all(...values, query.limit + 1) as Array<{ id: number; time: string; event: string }>;
      return page(rows, query.limit);
    },
    deleteBefore(time) {
      return deleteBefore.run(time).changes;
    },
    close() {
      db.close();
    },
  };
}

/** The WHERE clauses of a query, `?` placeholders and their values in order. */
function filters(query: AuditQuery): { clauses: string[]; values: unknown[] } {
  const clauses: string[] = [];
  const values: unknown[] = [];
  for (const field of ['username', 'verb', 'resource', 'name'] as const) {
    if (query[field] === undefined) continue;
    clauses.push(`${field} = ?`);
    values.push(query[field]);
  }
  if (query.since !== undefined) {
    clauses.push('time >= ?');
    values.push(query.since);
  }
  if (query.until !== undefined) {
    clauses.push('time < ?');
    values.push(query.until);
  }
  if (query.after) {
    clauses.push('(time < ? OR (time = ? AND id < ?))');
    values.push(query.after.time, query.after.time, query.after.id);
  }
  return { clauses, values };
}

/** The first `limit` rows, and where the next page starts when there was one more. */
export function page(rows: Array<{ id: number; time: string; event: string }>, limit: number): AuditPage {
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return {
    events: shown.map((row) => row.event),
    ...(rows.length > limit && last ? { next: { time: last.time, id: last.id } } : {}),
  };
}
