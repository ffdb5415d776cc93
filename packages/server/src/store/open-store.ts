import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/private-files.js';
import { openPostgresAuditStore } from './audit-postgres.js';
import { openSqliteAuditStore } from './audit-sqlite.js';
import type { AuditStore } from './audit-store.js';
import { withReadCache } from './cached-store.js';
import { openPostgresStore } from './postgres.js';
import { takeServerLock } from './server-lock.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './types.js';

/** Where a store lives: the embedded SQLite file under `dataDir`, or a PostgreSQL database (and schema). */
export interface StoreLocation {
  dataDir: string;
  /** `postgres://…`; unset = SQLite in `<dataDir>/svc.db`. */
  databaseUrl?: string;
  /** PostgreSQL schema (default `public`). */
  schema?: string;
  /** False: fail rather than create an empty store (an offline command given a mistyped --data-dir or schema). */
  create?: boolean;
  /**
   * A server opens it (or `svc import`, filling it): the embedded database then refuses a second one (server-lock.ts).
   * The other offline commands do not take the lock: they may run beside a server on purpose.
   */
  server?: boolean;
  /** Names this server among the replicas of a PostgreSQL store. */
  replicaId?: string;
  /** The embedded database's `synchronous` level (SVC_SQLITE_SYNC); default `normal`. */
  sqliteSync?: 'normal' | 'full';
}

/** The SQLite database file of a data directory. */
export function sqliteFileOf(dataDir: string): string {
  return path.join(dataDir, 'svc.db');
}

/**
 * Opens the store the settings name: the one place that chooses a dialect, shared by the server (main.ts) and the
 * offline commands (`svc export`, `svc import`, `svc admin`), which open the store directly, with no HTTP server.
 */
export async function openStore(location: StoreLocation): Promise<Store> {
  if (location.databaseUrl)
    return openPostgresStore({
      connectionString: location.databaseUrl,
      schema: location.schema,
      create: location.create,
      replicaId: location.replicaId,
    });
  const file = sqliteFileOf(location.dataDir);
  if (location.create === false && !existsSync(file)) {
    throw new Error(`no svc database at ${file}: give the server's data directory with --data-dir (or SVC_DATA_DIR)`);
  }
  await mkdir(location.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const release = location.server ? takeServerLock(location.dataDir) : () => undefined;
  // The embedded database belongs to this process alone, so a read cache in front of it can never go stale. (An
  // offline command may write beside a running server: the server's cache never sees those writes, which is why
  // `svc admin reset-password` writes only secrets, which bypass the cache.)
  let store: Store;
  try {
    // The database holds password hashes and token digests: made the owner's alone before SQLite opens it, since
    // SQLite makes a new file 0644 (less the umask) and gives its -wal and -shm files the database file's mode.
    closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
    store = withReadCache(openSqliteStore({ path: file, synchronous: location.sqliteSync }));
  } catch (error) {
    release();
    throw error;
  }
  return {
    ...store,
    close: async () => {
      await store.close();
      release();
    },
  };
}

/** Where a server's audit events are kept (store/audit-store.ts): beside the store its location names. */
export async function openAuditStore(location: StoreLocation): Promise<AuditStore> {
  if (location.databaseUrl) {
    return openPostgresAuditStore({ connectionString: location.databaseUrl, schema: location.schema ?? 'public' });
  }
  const file = path.join(location.dataDir, 'audit.db');
  // Events name users and what they did: the owner's alone, as the store is.
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  return openSqliteAuditStore(file);
}
