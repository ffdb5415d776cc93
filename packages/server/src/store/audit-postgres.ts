import pg from 'pg';
import { page } from './audit-sqlite-db.js';
import type { AuditPage, AuditQuery, AuditStore } from './audit-store.js';

/**
 * A shared store's audit events: a table of the store's schema that every replica appends to, each its own events,
 * so a query reads them all merged by time. Its own small pool: auditing never waits for the store's writers.
 * Times are kept as RFC 3339 text, as the SQLite store keeps them, so cursors read the same on both.
 */
export async function openPostgresAuditStore(options: {
  connectionString: string;
  schema: string;
}): Promise<AuditStore> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: 2,
    options: `-c search_path=${options.schema}`,
  });
  pool.on('error', () => {});
  // Replicas started together on an empty database race here: concurrent CREATE ... IF NOT EXISTS can still fail
  // with "already exists", so the DDL runs in one transaction behind a lock of its own, as the store's tables do.
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('svc audit ' || $1))", [options.schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS audit_events (
      id BIGSERIAL PRIMARY KEY,
      time TEXT NOT NULL,
      username TEXT NOT NULL,
      verb TEXT NOT NULL,
      resource TEXT NOT NULL,
      name TEXT NOT NULL,
      event TEXT NOT NULL
    )`);
    await client.query('CREATE INDEX IF NOT EXISTS audit_events_time ON audit_events (time DESC, id DESC)');
    await client.query('CREATE INDEX IF NOT EXISTS audit_events_user ON audit_events (username, time DESC, id DESC)');
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    client.release(true);
    await pool.end();
    throw error;
  }
  return {
    async append(records) {
      if (records.length === 0) return;
      // One statement for the batch: a row each from parallel arrays.
      await pool.query(
        'INSERT INTO audit_events (time, username, verb, resource, name, event) ' +
          'SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])',
        [
          records.map((r) => r.time),
          records.map((r) => r.username),
          records.map((r) => r.verb),
          records.map((r) => r.resource),
          records.map((r) => r.name),
          records.map((r) => r.event),
        ],
      );
    },
    async query(query: AuditQuery): Promise<AuditPage> {
      const values: unknown[] = [];
      const param = (value: unknown) => `$${values.push(value)}`;
      const clauses: string[] = [];
      for (const field of ['username', 'verb', 'resource', 'name'] as const) {
        if (query[field] !== undefined) clauses.push(`${field} = ${param(query[field])}`);
      }
      if (query.since !== undefined) clauses.push(`time >= ${param(query.since)}`);
      if (query.until !== undefined) clauses.push(`time < ${param(query.until)}`);
      if (query.after) {
        const time = param(query.after.time);
        clauses.push(`(time < ${time} OR (time = ${time} AND id < ${param(query.after.id)}))`);
      }
      const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
      const { rows } = await pool.query<{ id: string; time: string; event: string }>(
        `SELECT id, time, event FROM audit_events ${where} ORDER BY time DESC, id DESC LIMIT ${param(query.limit + 1)}`,
        values,
      );
      return page(
        rows.map((row) => ({ id: Number(row.id), time: row.time, event: row.event })),
        query.limit,
      );
    },
    async deleteBefore(time) {
      return (await pool.query('DELETE FROM audit_events WHERE time < $1', [time])).rowCount ?? 0;
    },
    close: () => pool.end(),
  };
}
