/**
 * The SQLite store (better-sqlite3). Reads run at once and return settled promises. Writes are group-committed: the
 * writes requested during one turn of the event loop run in a single transaction, each so that a write refused (a
 * conflict, the encoder) leaves nothing and does not disturb the others (see `create` and `update`), and every promise settles
 * only once the shared transaction has committed. A one-row commit writes several whole pages to the WAL; sharing the
 * commit between the writes of concurrent requests pays for those pages once per turn instead of once per write.
 */
import Database from 'better-sqlite3';
import {
  checkEncoded,
  checkKeep,
  checkPositiveInteger,
  checkRevision,
  DEFAULT_SCAN_BATCH_SIZE,
  type EventRow,
  type MetaRow,
  type ObjectRow,
  toChange,
  toRecord,
} from './records.js';
import { fixedLease } from './sole-lease.js';
import { sqliteRestore } from './sqlite-restore.js';
import { openSqliteSecrets } from './sqlite-secrets.js';
import {
  CompactedError,
  type Encoder,
  KeyExistsError,
  RevisionConflictError,
  type Store,
  type StoredRecord,
} from './types.js';

export interface SqliteStoreOptions {
  /** Database file, created if absent; `':memory:'` for a private in-memory database. */
  path: string;
  /** How long a writer waits for another process's write lock before failing with SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** SQLite's own page cache, in KiB (default 4 MiB). */
  cacheSizeKiB?: number;
  /**
   * When a commit reaches the disk (SVC_SQLITE_SYNC). `normal` (default): appended to the WAL without an fsync, so it
   * survives a kill -9 of the process but not a power loss or OS crash. `full`: the WAL is fsynced at every commit
   * (one per group of writes), so it survives those too.
   */
  synchronous?: 'normal' | 'full';
}

/** Revisions of history dropped per transaction by a compaction (about 5 ms of the event loop each). */
const COMPACTION_CHUNK = 1000;

/** PRAGMA synchronous as SQLite reports it. */
const SYNCHRONOUS_LEVELS: Record<number, string> = { 0: 'off', 1: 'normal', 2: 'full', 3: 'extra' };

// Plain rowid tables: WITHOUT ROWID is slower for these rows. The one index, (resource, name), serves reads, `count`
// and the keyset paging of `scan`; every page a write dirties costs a WAL frame, so there is no other.
// `meta.revision` is only a floor that compaction raises: the live counter is the newest event, so that a write does
// not dirty the meta page too.
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS objects (
    id INTEGER PRIMARY KEY, resource TEXT NOT NULL, name TEXT NOT NULL, revision INTEGER NOT NULL, value BLOB NOT NULL);
  CREATE UNIQUE INDEX IF NOT EXISTS objects_by_name ON objects (resource, name);
  CREATE TABLE IF NOT EXISTS events (
    revision INTEGER PRIMARY KEY, type TEXT NOT NULL, resource TEXT NOT NULL, name TEXT NOT NULL,
    prev_revision INTEGER NOT NULL, value BLOB NOT NULL, prev_value BLOB);
  CREATE TABLE IF NOT EXISTS meta (
    id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL, compacted INTEGER NOT NULL);
  INSERT OR IGNORE INTO meta (id, revision, compacted) VALUES (1, 0, 0);
`;

export function openSqliteStore(options: SqliteStoreOptions): Store {
  const db = new Database(options.path);
  // WAL with synchronous=NORMAL: a commit is appended to the WAL without an fsync, so a committed transaction survives
  // a kill -9 of this process (the OS still holds the pages); only an OS crash or power loss may lose the latest
  // commits, and never corrupts the file.
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  // What the database took, read back rather than assumed: the store reports it (Store.durability) and svc logs it.
  const durability = SYNCHRONOUS_LEVELS[db.pragma('synchronous', { simple: true }) as number] ?? 'unknown';
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  // better-sqlite3's default page cache is 16 MiB, and it fills as soon as indexes are built from a large model at
  // boot. Reads are served by the read cache and the in-memory indexes, and the OS keeps the file's pages anyway: 4 MiB
  // costs creates nothing measurable and lowers the resident memory of every stored object.
  db.pragma(`cache_size = ${-(options.cacheSizeKiB ?? 4096)}`);
  db.exec(SCHEMA);
  // Databases made before history kept the replaced value gain the column (older events simply have none).
  const eventColumns = db.prepare<[], { name: string }>('PRAGMA table_info(events)').all();
  if (!eventColumns.some((c) => c.name === 'prev_value')) db.exec('ALTER TABLE events ADD COLUMN prev_value BLOB');
  const secrets = openSqliteSecrets(db);

  const sql = {
    meta: db.prepare<[], MetaRow>(
      `SELECT max(revision, (SELECT coalesce(max(revision), 0) FROM events)) AS revision, compacted
       FROM meta WHERE id = 1`,
    ),
    // Compaction may drop every event, so it records the revision it reached.
    markCompacted: db.prepare<[number, number]>(
      'UPDATE meta SET compacted = max(compacted, ?), revision = max(revision, ?) WHERE id = 1',
    ),
    get: db.prepare<[string, string], ObjectRow>(
      'SELECT resource, name, revision, value FROM objects WHERE resource = ? AND name = ?',
    ),
    head: db.prepare<[string, string], { id: number; revision: number; value: Buffer }>(
      'SELECT id, revision, value FROM objects WHERE resource = ? AND name = ?',
    ),
    page: db.prepare<[string, string, number], ObjectRow>(
      'SELECT resource, name, revision, value FROM objects WHERE resource = ? AND name > ? ORDER BY name LIMIT ?',
    ),
    count: db.prepare<[string], number>('SELECT count(*) FROM objects WHERE resource = ?').pluck(),
    resources: db.prepare<[], string>('SELECT DISTINCT resource FROM objects ORDER BY resource').pluck(),
    insert: db.prepare<[string, string, number, Buffer]>(
      'INSERT INTO objects (resource, name, revision, value) VALUES (?, ?, ?, ?)',
    ),
    update: db.prepare<[number, Buffer, number]>('UPDATE objects SET revision = ?, value = ? WHERE id = ?'),
    remove: db.prepare<[number], Buffer>('DELETE FROM objects WHERE id = ? RETURNING value').pluck(),
    appendEvent: db.prepare<[number, string, string, string, number, Buffer, Buffer | null]>(
      'INSERT INTO events (revision, type, resource, name, prev_revision, value, prev_value) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    // LIMIT -1 is SQLite's "no limit".
    events: db.prepare<[number, number], EventRow>(
      `SELECT revision, type, resource, name, prev_revision, value, prev_value
       FROM events WHERE revision > ? ORDER BY revision LIMIT ?`,
    ),
    // The revision of the newest event that compaction drops: the newest at least `keep` revisions behind the last.
    // Revisions are handed out without gaps (a failed write's is reused), so that keeps the newest `keep` events; and
    // it is a seek, where counting `keep` events back with OFFSET read every kept row (35-40 ms at a million events,
    // every 10 s, on the main thread).
    compactionPoint: db
      .prepare<[number], number>(
        `SELECT revision FROM events WHERE revision <= (SELECT max(revision) FROM events) - ?
         ORDER BY revision DESC LIMIT 1`,
      )
      .pluck(),
    oldestEvent: db.prepare<[], number | null>('SELECT min(revision) FROM events').pluck(),
    dropEvents: db.prepare<[number]>('DELETE FROM events WHERE revision <= ?'),
  };

  // Inside a batch's transaction (which holds the write lock) the revision is read once and then counted in memory; a
  // write that fails does not advance it, so the next one reuses its revision and the history has no gap.
  let lastRevision: number | undefined;
  const nextRevision = (): number => (lastRevision ??= sql.meta.get()!.revision) + 1;

  /** The stored row's id and revision, provided the revision is the expected one (guards update and delete). */
  function expectRevision(resource: string, name: string, expected: number) {
    const head = sql.head.get(resource, name);
    if (head?.revision !== expected) throw new RevisionConflictError(resource, name, expected, head?.revision);
    return head;
  }

  // A create needs no savepoint: everything that may refuse it (the encoder, the unique name) happens before or in its
  // first statement, and SQLite undoes a failed statement by itself. Only a failure after its first row (which would
  // be a bug or an I/O error) aborts the whole batch. So a create runs two statements instead of five (savepoint,
  // look-up, two inserts, release).
  const create = (resource: string, name: string, encode: Encoder): StoredRecord => {
    const revision = nextRevision();
    const value = checkEncoded(encode(revision));
    try {
      sql.insert.run(resource, name, revision, value);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new KeyExistsError(resource, name);
      throw error;
    }
    afterFirstWrite(() => sql.appendEvent.run(revision, 'ADDED', resource, name, 0, value, null));
    lastRevision = revision;
    return { resource, name, revision, value };
  };

  // Updates and deletes need no savepoint either: what may refuse them (a stale revision, the encoder) happens before
  // their first write, and a failure after it aborts the batch. Saving the savepoint's two statements per write counts
  // for controllers, whose reconciles write mostly updates.
  const update = (resource: string, name: string, expected: number, encode: Encoder): StoredRecord => {
    const head = expectRevision(resource, name, expected);
    const revision = nextRevision();
    const value = checkEncoded(encode(revision));
    sql.update.run(revision, value, head.id);
    afterFirstWrite(() => sql.appendEvent.run(revision, 'MODIFIED', resource, name, head.revision, value, head.value));
    lastRevision = revision;
    return { resource, name, revision, value };
  };

  const remove = (resource: string, name: string, expected: number): StoredRecord => {
    const head = expectRevision(resource, name, expected);
    const revision = nextRevision();
    const value = sql.remove.get(head.id)!;
    afterFirstWrite(() => sql.appendEvent.run(revision, 'DELETED', resource, name, head.revision, value, null));
    lastRevision = revision;
    return { resource, name, revision, value };
  };

  // A read transaction, so the compaction point and the events come from the same snapshot.
  const changesSince = db.transaction((after: number, limit: number) => {
    const { compacted } = sql.meta.get()!;
    if (after < compacted) throw new CompactedError(after, compacted);
    return sql.events.all(after, limit).map(toChange);
  });

  const dropUpTo = db.transaction((point: number): number => {
    const dropped = sql.dropEvents.run(point).changes;
    sql.markCompacted.run(point, point);
    return dropped;
  });

  // In transactions of at most COMPACTION_CHUNK revisions, letting the event loop turn between them: deleting an event
  // costs about 5 µs, so the 50,000 events of 10 s of writes at 5,000/s held the loop for a quarter of a second.
  async function compact(keep: number): Promise<number> {
    const point = sql.compactionPoint.get(keep);
    if (point === undefined) return 0;
    let dropped = 0;
    for (let from = sql.oldestEvent.get() ?? point; ; ) {
      const upTo = Math.min(point, from + COMPACTION_CHUNK - 1);
      dropped += dropUpTo.immediate(upTo);
      if (upTo >= point) return dropped;
      from = upTo + 1;
      await new Promise((resolve) => setImmediate(resolve));
      // Closed meanwhile (a shutdown): the rest waits for the next start's compaction.
      if (!db.open) return dropped;
    }
  }

  const batch = new WriteBatch(db, () => (lastRevision = undefined));
  const restore = sqliteRestore(db);

  async function* scan(resource: string, batchSize = DEFAULT_SCAN_BATCH_SIZE): AsyncIterable<StoredRecord[]> {
    checkPositiveInteger('batchSize', batchSize);
    // Keyset paging on the unique index: each batch starts after the last name of the previous one.
    let afterName = '';
    for (;;) {
      const rows = sql.page.all(resource, afterName, batchSize);
      if (rows.length === 0) return;
      afterName = rows[rows.length - 1]!.name;
      yield rows.map(toRecord);
      if (rows.length < batchSize) return;
    }
  }

  return {
    dialect: 'sqlite',
    durability: `synchronous=${durability}`,
    // One process writes this file (a second server is refused: server-lock.ts), so its in-memory indexes hold the
    // unique claims, and no notice ever comes from elsewhere.
    shared: false,
    secrets,
    currentRevision: async () => sql.meta.get()!.revision,
    get: async (resource, name) => {
      const row = sql.get.get(resource, name);
      return row && toRecord(row);
    },
    // A point query per name: no slower than one IN (json_each(?)) query for a page of names, and already in order.
    getMany: async (resource, names) =>
      names.flatMap((name) => {
        const row = sql.get.get(resource, name);
        return row ? [toRecord(row)] : [];
      }),
    scan,
    count: async (resource) => sql.count.get(resource)!,
    resources: async () => sql.resources.all(),
    create: (resource, name, encode) => batch.run(() => create(resource, name, encode)),
    update: (resource, name, expected, encode) => batch.run(() => update(resource, name, expected, encode)),
    delete: (resource, name, expected) => batch.run(() => remove(resource, name, expected)),
    changesSince: async (after, limit) =>
      changesSince(after, limit === undefined ? -1 : checkPositiveInteger('limit', limit)),
    compact: async (keep) => compact(checkKeep(keep)),
    oldestResumableRevision: async () => sql.meta.get()!.compacted,
    skipTo: async (revision) => void sql.markCompacted.run(checkRevision(revision), revision),
    restore: async (revision, objects, secrets) => {
      // Writes already queued commit first, in their own transaction.
      batch.flush();
      restore(revision, objects, secrets);
    },
    backfillClaims: async () => undefined,
    listen: () => () => undefined,
    lease: (name) => fixedLease(true, name),
    lock: async () => async () => undefined,
    close: async () => {
      batch.flush();
      if (db.open) db.close();
    },
  };
}

/** Runs a statement of a write that has already changed rows: if it fails, the whole batch is rolled back. */
function afterFirstWrite(statement: () => unknown): void {
  try {
    statement();
  } catch (error) {
    throw new BatchAbort(error);
  }
}

/** A write failed after it changed rows: its batch cannot commit. */
class BatchAbort extends Error {
  constructor(override readonly cause: unknown) {
    super('write failed half way; the batch is rolled back');
  }
}

interface PendingWrite {
  write: () => StoredRecord;
  resolve: (record: StoredRecord) => void;
  reject: (error: unknown) => void;
}

/** Collects the writes of one event-loop turn and commits them together (see the file comment). */
class WriteBatch {
  private pending: PendingWrite[] = [];
  private readonly commit: Database.Transaction<
    (writes: PendingWrite[]) => Array<{ record?: StoredRecord; error?: unknown }>
  >;

  /** `reset` forgets the in-memory revision: another process may write between two batches. */
  constructor(
    db: Database.Database,
    private readonly reset: () => void,
  ) {
    this.commit = db.transaction((writes: PendingWrite[]) =>
      writes.map((w) => {
        try {
          return { record: w.write() };
        } catch (error) {
          // Rolls the whole batch back: every write of it is refused with the cause.
          if (error instanceof BatchAbort) throw error.cause;
          return { error };
        }
      }),
    );
  }

  run(write: () => StoredRecord): Promise<StoredRecord> {
    return new Promise((resolve, reject) => {
      this.pending.push({ write, resolve, reject });
      // setImmediate runs after the poll phase, so every request read in this turn joins the batch.
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  flush(): void {
    const writes = this.pending;
    if (writes.length === 0) return;
    this.pending = [];
    let outcomes: Array<{ record?: StoredRecord; error?: unknown }>;
    this.reset();
    try {
      // IMMEDIATE takes the write lock up front, so a writer in another process cannot slip in between our read of the
      // counter and our commit (and a deferred upgrade cannot fail with SQLITE_BUSY half way).
      outcomes = this.commit.immediate(writes);
    } catch (error) {
      for (const w of writes) w.reject(error);
      return;
    } finally {
      this.reset();
    }
    outcomes.forEach((outcome, i) => {
      const w = writes[i]!;
      if (outcome.record) w.resolve(outcome.record);
      else w.reject(outcome.error);
    });
  }
}
