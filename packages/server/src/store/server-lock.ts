/**
 * One server per embedded database: SQLite is a file on one machine, and two servers writing it would each keep their
 * own indexes and caches of it, answering from stale ones. A server takes `<data dir>/svc.db.server`, created
 * exclusively with its process id; a second server finds it held by a live process and refuses to start, naming
 * that process. A lock left by a process that died (kill -9, power loss) is taken over. Offline commands (`svc
 * export`, `svc admin`) do not take it: they may run beside a server on purpose.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function lockFileOf(dataDir: string): string {
  return path.join(dataDir, 'svc.db.server');
}

/** Takes the data directory's server lock; returns its release. Throws when another live server holds it. */
export function takeServerLock(dataDir: string): () => void {
  const file = lockFileOf(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return () => {
        if (holderOf(file) === process.pid) rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = holderOf(file);
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new Error(
        `another svc server (process ${holder}) already serves the database in ${dataDir}; ` +
          'the embedded SQLite database takes one server: stop it, give this one another --data-dir, ' +
          'or run several replicas on PostgreSQL (SVC_DATABASE_URL)',
      );
    }
    // Left by a process that is gone: take it over.
    rmSync(file, { force: true });
  }
  throw new Error(`could not take the server lock ${file}`);
}

function holderOf(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is only someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
