/**
 * The SQLite store's secret records (SecretStore): a plain key-value table beside the history, and the one-time move
 * of the secrets that earlier versions wrote into the history.
 *
 * A secret write runs on its own, outside the store's write batches: better-sqlite3 is synchronous, so it can never
 * land inside a batch's transaction, and a secret write is rare (a sign-in, a password change, a session touched once a
 * minute) so it does not need the batch's shared commit.
 */
import type Database from 'better-sqlite3';
import { checkPositiveInteger, DEFAULT_SCAN_BATCH_SIZE, SECRET_RESOURCES_ONCE_IN_HISTORY } from './records.js';
import type { SecretStore } from './types.js';

// WITHOUT ROWID: the primary key is the only way in, so the table is a single B-tree.
const SECRETS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS secrets (
    kind TEXT NOT NULL, name TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (kind, name)) WITHOUT ROWID;`;

export function openSqliteSecrets(db: Database.Database): SecretStore {
  moveSecretsOutOfHistory(db);
  const sql = {
    get: db.prepare<[string, string], Buffer>('SELECT value FROM secrets WHERE kind = ? AND name = ?').pluck(),
    put: db.prepare<[string, string, Buffer]>(
      'INSERT INTO secrets (kind, name, value) VALUES (?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET value = excluded.value',
    ),
    replace: db.prepare<[Buffer, string, string]>('UPDATE secrets SET value = ? WHERE kind = ? AND name = ?'),
    remove: db.prepare<[string, string]>('DELETE FROM secrets WHERE kind = ? AND name = ?'),
    page: db.prepare<[string, string, number], { name: string; value: Buffer }>(
      'SELECT name, value FROM secrets WHERE kind = ? AND name > ? ORDER BY name LIMIT ?',
    ),
    kinds: db.prepare<[], string>('SELECT DISTINCT kind FROM secrets ORDER BY kind').pluck(),
  };
  return {
    get: async (kind, name) => sql.get.get(kind, name),
    put: async (kind, name, value) => void sql.put.run(kind, name, value),
    replace: async (kind, name, value) => sql.replace.run(value, kind, name).changes > 0,
    delete: async (kind, name) => sql.remove.run(kind, name).changes > 0,
    kinds: async () => sql.kinds.all(),
    async *scan(kind, batchSize = DEFAULT_SCAN_BATCH_SIZE) {
      checkPositiveInteger('batchSize', batchSize);
      let after = '';
      for (;;) {
        const rows = sql.page.all(kind, after, batchSize);
        if (rows.length === 0) return;
        after = rows[rows.length - 1]!.name;
        yield rows.map((row): [string, Buffer] => [row.name, row.value]);
        if (rows.length < batchSize) return;
      }
    },
  };
}

/**
 * Creates the secrets table and, on the first open by a version that has it (the table is new) or whenever objects of
 * those resources are found (a version without it wrote since), moves the secret records out of the history: current
 * records into the table, then their object rows and every event of theirs deleted. One IMMEDIATE transaction, so it
 * happens whole or not at all, and again harmlessly. Later opens cost one index probe, not a scan of the history.
 */
function moveSecretsOutOfHistory(db: Database.Database): void {
  const resources = SECRET_RESOURCES_ONCE_IN_HISTORY;
  const list = resources.map(() => '?').join(', ');
  const move = db.transaction(() => {
    const fresh =
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'secrets'").get() === undefined;
    db.exec(SECRETS_SCHEMA);
    const left =
      db.prepare(`SELECT 1 FROM objects WHERE resource IN (${list}) LIMIT 1`).get(...resources) !== undefined;
    if (!fresh && !left) return 0;
    // A record still among the objects was written after any earlier move, so it wins over the table's.
    db.prepare(
      `INSERT INTO secrets (kind, name, value) SELECT resource, name, value FROM objects WHERE resource IN (${list})
       ON CONFLICT (kind, name) DO UPDATE SET value = excluded.value`,
    ).run(...resources);
    // The live revision is the newest event's: pin it in meta first, or erasing the newest events would hand their
    // revisions out again and a watch resuming from one would miss the write that reused it.
    db.prepare(
      'UPDATE meta SET revision = max(revision, (SELECT coalesce(max(revision), 0) FROM events)) WHERE id = 1',
    ).run();
    const objects = db.prepare(`DELETE FROM objects WHERE resource IN (${list})`).run(...resources).changes;
    return objects + db.prepare(`DELETE FROM events WHERE resource IN (${list})`).run(...resources).changes;
  });
  // secure_delete zeroes what the deletions free, and the checkpoint empties the WAL of the older frames, so the hashes
  // do not linger in the files either.
  const secureDelete = db.pragma('secure_delete', { simple: true }) as number;
  db.pragma('secure_delete = ON');
  try {
    if (move.immediate() > 0) db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.pragma(`secure_delete = ${secureDelete}`);
  }
}
