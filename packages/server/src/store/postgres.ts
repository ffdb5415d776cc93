/**
 * The PostgreSQL store (pg). Writers of one schema are serialized by a transaction-scoped advisory lock and take
 * their revisions from the `meta` counter row inside that transaction, so revisions become visible in commit order.
 * The writes of one server are group-committed (postgres-batch.ts): those requested together share a transaction and
 * one hold of the lock, and a refused write takes no revision and leaves nothing.
 */

import { hostname } from 'node:os';
import type { PoolClient } from 'pg';
import pg from 'pg';
import { currentFence } from './fence.js';
import { GroupCommit } from './postgres-batch.js';
import { digestOf } from './postgres-group-plan.js';
import { PostgresLease } from './postgres-lease.js';
import { SESSION_LIVENESS } from './postgres-liveness.js';
import { PostgresNotices } from './postgres-notices.js';
import * as q from './postgres-queries.js';
import { run, runScript } from './postgres-queries.js';
import { restoreInto } from './postgres-restore.js';
import { moveSecretsOutOfHistory, postgresSecrets, SECRETS_LEFT_IN_HISTORY } from './postgres-secrets.js';
import {
  checkKeep,
  checkPositiveInteger,
  checkRevision,
  DEFAULT_SCAN_BATCH_SIZE,
  type EventRow,
  inNameOrder,
  type MetaRow,
  type ObjectRow,
  SECRET_RESOURCES_ONCE_IN_HISTORY,
  toChange,
  toRecord,
} from './records.js';
import { CompactedError, FencedError, type Store, type StoredRecord } from './types.js';

export interface PostgresStoreOptions {
  connectionString: string;
  /** Schema holding the tables, created if absent; a plain lower-case identifier. Default `public`. */
  schema?: string;
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /** False: fail rather than create the schema and tables (an offline command given a mistyped schema). */
  create?: boolean;
  /** Names this server in `leases` (default host name and process id). */
  replicaId?: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** First key of the writers' advisory lock ("svc!"); the second is derived from the schema name. */
const LOCK_CLASS = 0x73766321;
/** First key of the leases' advisory locks ("svcL"); the second is derived from the schema and the lease's name. */
const LEASE_CLASS = 0x7376634c;
const INT8_OID = 20;

/** BIGINT arrives as text by default; revisions, ids and counts stay far below 2^53, so read them as numbers. */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`BIGINT ${text} does not fit a JS number`);
  return value;
}

function getTypeParser(oid: number, format?: 'text' | 'binary') {
  return oid === INT8_OID && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format);
}
const typeParsers = { getTypeParser: getTypeParser as typeof pg.types.getTypeParser };

/** A stable 32-bit key per schema (FNV-1a), so stores in different schemas do not wait on each other. */
function schemaLockKey(schema: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < schema.length; i++) hash = Math.imul(hash ^ schema.charCodeAt(i), 0x01000193);
  return hash | 0;
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`schema must be a plain lower-case identifier, got ${JSON.stringify(schema)}`);
  }
  const lockKey = schemaLockKey(schema);
  // One notification channel per schema: stores in different schemas of one database are different stores.
  const channel = `svc_${(lockKey >>> 0).toString(16)}`;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    options: `-c search_path=${schema} ${SESSION_LIVENESS}`,
    types: typeParsers,
  });
  // An idle connection that breaks emits 'error' on the pool; the pool drops it and the next query reconnects, so
  // there is nothing to do but keep the event from crashing the process as an unhandled 'error'.
  pool.on('error', () => {});
  // A connection that breaks while checked out (a transaction waiting on a dead link, once the link returns and the
  // server answers with a reset) emits 'error' on its client too: its query fails with it, and the pool drops it on
  // release; without a listener the event would end the process (found by the partition tests).
  pool.on('connect', (client) => client.on('error', () => {}));

  /** Runs `work` in a transaction; any throw rolls everything back, the revision counter included. */
  async function inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await runScript(client, q.BEGIN);
      const result = await work(client);
      await runScript(client, q.COMMIT);
      client.release();
      return result;
    } catch (error) {
      // A connection that cannot even roll back is destroyed rather than returned to the pool.
      const broken = await runScript(client, q.ROLLBACK).then(
        () => undefined,
        (rollbackError: Error) => rollbackError,
      );
      client.release(broken);
      throw error;
    }
  }

  try {
    if (options.create === false && !(await run<{ exist: boolean }>(pool, q.STORE_EXISTS, [])).rows[0]!.exist) {
      throw new Error(
        `no svc store in schema ${schema} of this database: check --database-schema (SVC_DATABASE_SCHEMA)`,
      );
    }
    const resources = [...SECRET_RESOURCES_ONCE_IN_HISTORY];
    const made = (await run<{ exist: boolean }>(pool, q.TABLES_EXIST, [])).rows[0]!.exist;
    // Secrets move out of the history on the first open by a version with the secrets table, and whenever a version
    // without it has written some since (an index probe; the history is scanned only then).
    const left = made && (await run<{ found: boolean }>(pool, SECRETS_LEFT_IN_HISTORY, [resources])).rows[0]!.found;
    if (!made || left) {
      await inTransaction(async (client) => {
        await run(client, q.LOCK_WRITERS, [LOCK_CLASS, lockKey]);
        await runScript(client, { name: 'create_schema', text: `CREATE SCHEMA IF NOT EXISTS ${schema}` });
        await runScript(client, q.CREATE_TABLES);
        await moveSecretsOutOfHistory(client);
      });
    }
  } catch (error) {
    await pool.end();
    throw error;
  }

  async function meta(): Promise<MetaRow> {
    return (await run<MetaRow>(pool, q.SELECT_META, [])).rows[0]!;
  }

  async function* scan(resource: string, batchSize = DEFAULT_SCAN_BATCH_SIZE): AsyncIterable<StoredRecord[]> {
    checkPositiveInteger('batchSize', batchSize);
    let afterName = '';
    for (;;) {
      const { rows } = await run<ObjectRow>(pool, q.SCAN_OBJECTS, [resource, afterName, batchSize]);
      if (rows.length === 0) return;
      afterName = rows[rows.length - 1]!.name;
      yield rows.map(toRecord);
      if (rows.length < batchSize) return;
    }
  }

  // PostgreSQL's own setting (`on` by default: a commit is flushed to its WAL before it is acknowledged).
  const synchronousCommit = (await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!
    .synchronous_commit;
  let closing: Promise<void> | undefined;
  const notices = new PostgresNotices(options.connectionString, channel);
  const leases = new Map<string, PostgresLease>();
  const replicaId = options.replicaId ?? `${hostname()}:${process.pid}`;
  const group = new GroupCommit({ pool, lockKeys: [LOCK_CLASS, lockKey], channel, instance: notices.instance });

  return {
    dialect: 'postgres',
    durability: `synchronous_commit=${synchronousCommit}`,
    shared: true,
    secrets: postgresSecrets(pool, channel),
    currentRevision: async () => (await meta()).revision,
    get: async (resource, name) => {
      const row = (await run<ObjectRow>(pool, q.SELECT_OBJECT, [resource, name])).rows[0];
      return row && toRecord(row);
    },
    getMany: async (resource, names) => {
      if (names.length === 0) return [];
      const { rows } = await run<ObjectRow>(pool, q.SELECT_OBJECTS, [resource, names]);
      return inNameOrder(rows, names);
    },
    scan,
    count: async (resource) => (await run<{ count: number }>(pool, q.COUNT_OBJECTS, [resource])).rows[0]!.count,
    resources: async () => (await run<{ resource: string }>(pool, q.SELECT_RESOURCES, [])).rows.map((r) => r.resource),
    // Grouped (postgres-batch.ts); a write made for the leader carries its lease's epoch (fence.ts).
    create: (resource, name, encode, claims) =>
      group.run({ kind: 'create', resource, name, encode, claims, fence: currentFence() }),
    update: (resource, name, expected, encode, claims) =>
      group.run({ kind: 'update', resource, name, expected, encode, claims, fence: currentFence() }),
    delete: (resource, name, expected) =>
      group.run({ kind: 'delete', resource, name, expected, fence: currentFence() }),
    changesSince: async (after, limit) => {
      const values = [after, limit === undefined ? null : checkPositiveInteger('limit', limit)];
      const { rows } = await run<{ compacted: number } & EventRow>(pool, q.SELECT_CHANGES, values);
      // Exactly one row with null event columns when there is no event to return.
      const { compacted, revision } = rows[0] as { compacted: number; revision: number | null };
      if (after < compacted) throw new CompactedError(after, compacted);
      return revision === null ? [] : rows.map(toChange);
    },
    compact: async (keep) => {
      checkKeep(keep);
      const fence = currentFence();
      return inTransaction(async (client) => {
        await run(client, q.LOCK_WRITERS, [LOCK_CLASS, lockKey]);
        if (fence) {
          const epoch = (await run<{ epoch: number }>(client, q.FENCE_EPOCH, [fence.lease])).rows[0]?.epoch;
          if (epoch !== fence.epoch) throw new FencedError(fence.lease, fence.epoch, epoch);
        }
        const point = (await run<{ revision: number }>(client, q.COMPACTION_POINT, [keep])).rows[0]?.revision;
        if (point === undefined) return 0;
        const dropped = (await run(client, q.DROP_EVENTS, [point])).rowCount ?? 0;
        await run(client, q.MARK_COMPACTED, [point]);
        return dropped;
      });
    },
    oldestResumableRevision: async () => (await meta()).compacted,
    skipTo: (revision) =>
      inTransaction(async (client) => {
        await run(client, q.LOCK_WRITERS, [LOCK_CLASS, lockKey]);
        await run(client, q.SKIP_TO, [checkRevision(revision)]);
      }),
    restore: (revision, objects, secrets) =>
      inTransaction(async (client) => {
        await run(client, q.LOCK_WRITERS, [LOCK_CLASS, lockKey]);
        await restoreInto(client, revision, objects, secrets);
      }),
    backfillClaims: async (resource, index, holders) => {
      const claimed = (await run<{ count: number }>(pool, q.COUNT_CLAIMS, [resource, index])).rows[0]!.count;
      if (claimed >= holders.length) return;
      // Under the writers' lock: a group's checks read the claims once and count on them until its commit.
      await inTransaction(async (client) => {
        await run(client, q.LOCK_WRITERS, [LOCK_CLASS, lockKey]);
        for (let i = 0; i < holders.length; i += 5000) {
          const slice = holders.slice(i, i + 5000);
          const digests = slice.map((h) => digestOf(h[0]));
          await run(client, q.BACKFILL_CLAIMS, [resource, index, digests, slice.map((h) => h[1])]);
        }
      });
    },
    listen: (listener) => notices.listen(listener),
    lease: (name) => {
      let lease = leases.get(name);
      if (!lease) {
        lease = new PostgresLease({
          connectionString: options.connectionString,
          schema,
          keys: [LEASE_CLASS, schemaLockKey(`${schema}/${name}`)],
          name,
          holder: replicaId,
        });
        leases.set(name, lease);
      }
      return lease;
    },
    lock: async (name) => {
      // A connection of its own: the lock is the session's, and it goes with the connection if this server dies.
      const client = new pg.Client({ connectionString: options.connectionString });
      client.on('error', () => undefined);
      await client.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1, $2)', [LEASE_CLASS, schemaLockKey(`${schema}/lock/${name}`)]);
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      return () => client.end().catch(() => undefined);
    },
    close: () =>
      (closing ??= (async () => {
        await Promise.all([...leases.values()].map((lease) => lease.release()));
        await group.drain();
        await notices.close();
        await pool.end();
      })()),
  };
}
