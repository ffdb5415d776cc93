/**
 * The PostgreSQL store's SQL, and how it runs. Every statement is a named constant: the name doubles as the
 * prepared-statement name on each connection and is what an error message reports, so a log line says which query
 * failed.
 *
 * Statements are unqualified; each connection's search_path is the store's schema.
 */
import type pg from 'pg';
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';

export interface NamedQuery {
  readonly name: string;
  readonly text: string;
}

type Queryable = pg.Pool | PoolClient;

/** Runs a named query as a prepared statement; a failure names the query. */
export async function run<R extends QueryResultRow>(
  db: Queryable,
  query: NamedQuery,
  values: unknown[],
): Promise<QueryResult<R>> {
  try {
    return await db.query<R>({ name: query.name, text: query.text, values });
  } catch (error) {
    throw withQueryName(error, query.name);
  }
}

/**
 * Runs a parameterless query (several statements allowed) with the simple protocol; a failure names the query. Returns
 * pg's result: an array of one per statement when there are several.
 */
export async function runScript(db: Queryable, query: NamedQuery): Promise<unknown> {
  try {
    return await db.query(query.text);
  } catch (error) {
    throw withQueryName(error, query.name);
  }
}

function withQueryName(error: unknown, name: string): unknown {
  if (error instanceof Error) Object.assign(error, { query: name, message: `${name}: ${error.message}` });
  return error;
}

/**
 * Whether the store's tables exist, so that opening needs no CREATE privilege once they do. `secrets` is asked
 * apart: a database made before it existed gets it, and has its secrets moved out of the history (postgres-secrets.ts).
 */
export const TABLES_EXIST: NamedQuery = {
  name: 'tables_exist',
  text: `SELECT to_regclass('meta') IS NOT NULL AND to_regclass('secrets') IS NOT NULL
           AND to_regclass('unique_claims') IS NOT NULL AND to_regclass('leases') IS NOT NULL AS exist`,
};

/** Whether the schema holds an svc store at all (any version's). */
export const STORE_EXISTS: NamedQuery = {
  name: 'store_exists',
  text: "SELECT to_regclass('meta') IS NOT NULL AS exist",
};

/**
 * No surrogate id (SQLite's is its free rowid): nothing reads one, and its index would cost every create.
 * Run once at open, after CREATE SCHEMA and inside a transaction holding the store's advisory lock (concurrent
 * CREATE ... IF NOT EXISTS race). Several statements, so it runs as a simple query, not a prepared one.
 */
export const CREATE_TABLES: NamedQuery = {
  name: 'create_tables',
  text: `
    CREATE TABLE IF NOT EXISTS objects (
      resource TEXT NOT NULL, name TEXT NOT NULL, revision BIGINT NOT NULL, value BYTEA NOT NULL,
      PRIMARY KEY (resource, name));
    CREATE TABLE IF NOT EXISTS events (
      revision BIGINT PRIMARY KEY, type TEXT NOT NULL, resource TEXT NOT NULL, name TEXT NOT NULL,
      prev_revision BIGINT NOT NULL, value BYTEA NOT NULL, prev_value BYTEA);
    ALTER TABLE events ADD COLUMN IF NOT EXISTS prev_value BYTEA;
    CREATE TABLE IF NOT EXISTS meta (
      id INT PRIMARY KEY CHECK (id = 1), revision BIGINT NOT NULL, compacted BIGINT NOT NULL);
    INSERT INTO meta (id, revision, compacted) VALUES (1, 0, 0) ON CONFLICT DO NOTHING;
    CREATE TABLE IF NOT EXISTS secrets (
      kind TEXT NOT NULL, name TEXT NOT NULL, value BYTEA NOT NULL, PRIMARY KEY (kind, name));
    CREATE TABLE IF NOT EXISTS unique_claims (
      resource TEXT NOT NULL, index_name TEXT NOT NULL, digest BYTEA NOT NULL, name TEXT NOT NULL,
      PRIMARY KEY (resource, index_name, digest));
    CREATE INDEX IF NOT EXISTS unique_claims_by_name ON unique_claims (resource, name);
    CREATE TABLE IF NOT EXISTS leases (
      name TEXT PRIMARY KEY, epoch BIGINT NOT NULL, holder TEXT NOT NULL, acquired_at TIMESTAMPTZ NOT NULL);`,
};

export const BEGIN: NamedQuery = { name: 'begin', text: 'BEGIN' };
export const COMMIT: NamedQuery = { name: 'commit', text: 'COMMIT' };
export const ROLLBACK: NamedQuery = { name: 'rollback', text: 'ROLLBACK' };

/**
 * Serializes writers of one schema until their commit, so revisions become visible in commit order: without it a
 * slow transaction could commit revision N after N+1 is visible, and a watch resuming from N+1 would miss it.
 * $1: a constant class id, $2: the schema's key. Taken on its own by compaction and table creation.
 */
export const LOCK_WRITERS: NamedQuery = { name: 'lock_writers', text: 'SELECT pg_advisory_xact_lock($1, $2)' };

/*
 * Unique claims (Store.create's and update's `claims`): one row per unique index value an object holds, so two servers
 * can never both store a duplicate. A value is kept as its SHA-256 digest: any length fits the primary key's B-tree,
 * and a value PostgreSQL's TEXT refuses (a NUL character) is claimed like any other. Writes take and release them
 * under the writers' lock (postgres-batch.ts); so does a backfill.
 */

export const COUNT_CLAIMS: NamedQuery = {
  name: 'count_claims',
  text: 'SELECT count(*) AS count FROM unique_claims WHERE resource = $1 AND index_name = $2',
};

/** $1 resource, $2 index, $3 digests, $4 names. */
export const BACKFILL_CLAIMS: NamedQuery = {
  name: 'backfill_claims',
  text: `
    INSERT INTO unique_claims (resource, index_name, digest, name)
    SELECT $1, $2, h.digest, h.name FROM unnest($3::bytea[], $4::text[]) AS h(digest, name)
    ON CONFLICT DO NOTHING`,
};

/** A secret record changed: $1 the channel, $2 kind, $3 name. Sent at commit, like every notice. */
export const NOTIFY_SECRET: NamedQuery = {
  name: 'notify_secret',
  text: `SELECT pg_notify($1, 's' || json_build_array($2::text, $3::text)::text)`,
};

export const SELECT_META: NamedQuery = {
  name: 'select_meta',
  text: 'SELECT revision, compacted FROM meta WHERE id = 1',
};

export const SELECT_OBJECT: NamedQuery = {
  name: 'select_object',
  text: 'SELECT resource, name, revision, value FROM objects WHERE resource = $1 AND name = $2',
};

/** $2: text[] of names. */
export const SELECT_OBJECTS: NamedQuery = {
  name: 'select_objects',
  text: 'SELECT resource, name, revision, value FROM objects WHERE resource = $1 AND name = ANY($2::text[])',
};

/** Keyset paging on the primary key: $2 the last name of the previous page, $3 the page size. */
export const SCAN_OBJECTS: NamedQuery = {
  name: 'scan_objects',
  text: 'SELECT resource, name, revision, value FROM objects WHERE resource = $1 AND name > $2 ORDER BY name LIMIT $3',
};

/** COLLATE "C": the same byte order as SQLite's, so both stores list resources alike. */
export const SELECT_RESOURCES: NamedQuery = {
  name: 'select_resources',
  text: 'SELECT resource FROM objects GROUP BY resource ORDER BY resource COLLATE "C"',
};

export const COUNT_OBJECTS: NamedQuery = {
  name: 'count_objects',
  text: 'SELECT count(*) AS count FROM objects WHERE resource = $1',
};

/**
 * The compaction point and the events after $1 (at most $2; NULL is no limit) in one statement, hence one snapshot:
 * a compaction between two reads could otherwise hide a gap. Returns one row with null event columns when none.
 */
export const SELECT_CHANGES: NamedQuery = {
  name: 'select_changes',
  text: `
    SELECT meta.compacted, e.revision, e.type, e.resource, e.name, e.prev_revision, e.value, e.prev_value
    FROM meta LEFT JOIN LATERAL (
      SELECT * FROM events WHERE revision > $1 ORDER BY revision LIMIT $2
    ) e ON true
    WHERE meta.id = 1
    ORDER BY e.revision`,
};

/**
 * The revision of the newest event compaction drops: the newest at least $1 revisions behind the last. Two seeks on
 * the primary key (the last event, then the newest at or below the point), where counting $1 events back with OFFSET
 * read every kept row. Revisions are given without gaps, so this keeps the newest $1 events (fewer where secrets
 * were moved out of the history).
 */
export const COMPACTION_POINT: NamedQuery = {
  name: 'compaction_point',
  text: `SELECT revision FROM events WHERE revision <= (SELECT max(revision) FROM events) - $1
         ORDER BY revision DESC LIMIT 1`,
};

/** The epoch of a lease ($1), FOR SHARE: a new holder's bump waits for the transaction that checked it. */
export const FENCE_EPOCH: NamedQuery = {
  name: 'fence_epoch',
  text: 'SELECT epoch FROM leases WHERE name = $1 FOR SHARE',
};

export const DROP_EVENTS: NamedQuery = { name: 'drop_events', text: 'DELETE FROM events WHERE revision <= $1' };

export const MARK_COMPACTED: NamedQuery = {
  name: 'mark_compacted',
  text: 'UPDATE meta SET compacted = GREATEST(compacted, $1) WHERE id = 1',
};

/** $1: the revision a restored store continues after (Store.skipTo). */
export const SKIP_TO: NamedQuery = {
  name: 'skip_to',
  text: 'UPDATE meta SET revision = GREATEST(revision, $1), compacted = GREATEST(compacted, $1) WHERE id = 1',
};
