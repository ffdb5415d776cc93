/**
 * One server per embedded database: SQLite is a file on one machine, and two servers writing it would each keep their
 * own indexes and caches of it, answering from stale ones. A server holds an exclusive lock on `<data dir>/svc.lock`
 * for its whole life; a second server finds it held and refuses to start. Offline commands (`svc export`, `svc admin`)
 * do not take it: they may run beside a server on purpose.
 *
 * The lock is the kernel's, not a process id in a file: a pid file checked with kill(pid, 0) kept refusing starts
 * while a killed server stayed an unreaped zombie, and for good when a stranger (in a container, a later process)
 * got the same pid. Node.js has no flock, so the lock is SQLite's own on a small database: with
 * `locking_mode=EXCLUSIVE` the write lock taken once is kept until the connection closes, and SQLite's unix VFS takes
 * it with fcntl, which the kernel drops the moment the process dies, however it dies. SQLite also refuses a second
 * connection of the same process, so servers started in one process (the tests') are told apart too.
 */
import { closeSync, openSync, truncateSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { PRIVATE_FILE_MODE } from '../util/private-files.js';

export function lockFileOf(dataDir: string): string {
  return path.join(dataDir, 'svc.lock');
}

/** Takes the data directory's server lock; returns its release. Throws when another server holds it. */
export function takeServerLock(dataDir: string): () => void {
  const file = lockFileOf(dataDir);
  // Made before SQLite opens it, so that it is the owner's alone from the first byte (SQLite would make it 0644).
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  try {
    return lockDatabase(file, dataDir);
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_NOTADB') throw error;
  }
  // Something else was left at that path (a pid written by hand, a damaged file): no server holds a lock through a
  // file that is not a database, so it is emptied in place (an empty file is an empty database) and taken. Emptied,
  // not replaced: a server starting at the same moment then locks the same file, and one of the two is refused.
  truncateSync(file, 0);
  return lockDatabase(file, dataDir);
}

function lockDatabase(file: string, dataDir: string): () => void {
  let db: Database.Database | undefined;
  try {
    // timeout 0: a held lock is refused at once rather than waited for.
    db = new Database(file, { timeout: 0 });
    // No journal file beside it: the lock database holds nothing worth rolling back.
    db.pragma('journal_mode = OFF');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    db?.close();
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new Error(
        `another svc server already serves the database in ${dataDir} (it holds the lock ${file}; ` +
          '`fuser -v` or `lsof` on that file names its process); ' +
          'the embedded SQLite database takes one server: stop it, give this one another --data-dir, ' +
          'or run several replicas on PostgreSQL (SVC_DATABASE_URL)',
      );
    }
    throw error;
  }
  const held = db;
  return () => {
    if (held.open) held.close();
  };
}
