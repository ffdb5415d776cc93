/**
 * `Store.restore` on SQLite: one IMMEDIATE transaction, so a restore is committed whole or not at all, even if the
 * process dies half way (the WAL's uncommitted frames are ignored at the next open).
 */
import type Database from 'better-sqlite3';
import { checkEncoded, checkRevision, type MetaRow } from './records.js';
import { KeyExistsError, type RestoredObject, type RestoredSecret } from './types.js';

export type SqliteRestore = (
  revision: number,
  objects: readonly RestoredObject[],
  secrets: readonly RestoredSecret[],
) => void;

/** Prepared once the store's tables (secrets included) exist. */
export function sqliteRestore(db: Database.Database): SqliteRestore {
  const sql = {
    holdsAny: db
      .prepare<[], number>('SELECT EXISTS (SELECT 1 FROM objects) OR EXISTS (SELECT 1 FROM secrets) AS held')
      .pluck(),
    skipTo: db.prepare<[number, number]>(
      'UPDATE meta SET compacted = max(compacted, ?), revision = max(revision, ?) WHERE id = 1',
    ),
    meta: db.prepare<[], MetaRow>(
      `SELECT max(revision, (SELECT coalesce(max(revision), 0) FROM events)) AS revision, compacted
       FROM meta WHERE id = 1`,
    ),
    insert: db.prepare<[string, string, number, Buffer]>(
      'INSERT INTO objects (resource, name, revision, value) VALUES (?, ?, ?, ?)',
    ),
    added: db.prepare<[number, string, string, Buffer]>(
      "INSERT INTO events (revision, type, resource, name, prev_revision, value) VALUES (?, 'ADDED', ?, ?, 0, ?)",
    ),
    secret: db.prepare<[string, string, Buffer]>('INSERT INTO secrets (kind, name, value) VALUES (?, ?, ?)'),
  };
  const restore = db.transaction(
    (revision: number, objects: readonly RestoredObject[], secrets: readonly RestoredSecret[]) => {
      if (sql.holdsAny.get() === 1) throw new Error('the store is not empty: a restore needs an empty one');
      sql.skipTo.run(revision, revision);
      let next = sql.meta.get()!.revision;
      for (const { resource, name, encode } of objects) {
        next++;
        const value = checkEncoded(encode(next));
        try {
          sql.insert.run(resource, name, next, value);
        } catch (error) {
          if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
            throw new KeyExistsError(resource, name);
          throw error;
        }
        sql.added.run(next, resource, name, value);
      }
      for (const { kind, name, value } of secrets) {
        try {
          sql.secret.run(kind, name, value);
        } catch (error) {
          if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT'))
            throw new Error(`the secret record ${kind}/${name} is given twice`);
          throw error;
        }
      }
    },
  );
  return (revision, objects, secrets) => restore.immediate(checkRevision(revision), objects, secrets);
}
