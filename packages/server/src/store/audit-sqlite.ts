/**
 * The embedded store's AuditStore: its database (audit-sqlite-db.ts) runs on a worker thread of its own, so the
 * request path only queues events (the default policy audits every write: inserting each with its indexes on the
 * main thread cost a create several microseconds more, and a checkpoint now and then much more).
 */
import { Worker } from 'node:worker_threads';
import type { AuditPage, AuditQuery, AuditRecord, AuditStore } from './audit-store.js';

export type AuditCall = { id: number } & (
  | { op: 'append'; records: readonly AuditRecord[] }
  | { op: 'query'; query: AuditQuery }
  | { op: 'deleteBefore'; time: string }
  | { op: 'close' }
);
export type AuditReply = { id: number; result?: unknown; error?: string };
type Call = AuditCall extends infer C ? (C extends AuditCall ? Omit<C, 'id'> : never) : never;

/**
 * The worker's module: beside this one when built; under the test runner, which runs the TypeScript sources, the built
 * copy (`npm test` builds first), since a worker thread loads plain JavaScript.
 */
const WORKER = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/store/audit-sqlite-worker.js', import.meta.url)
  : new URL('./audit-sqlite-worker.js', import.meta.url);

/** Opens `path` on a new worker thread; rejects when the database cannot be opened there. */
export async function openSqliteAuditStore(path: string): Promise<AuditStore> {
  const worker = new Worker(WORKER, { workerData: { path } });
  // A stop closes it (close() below); it alone never keeps the process alive.
  worker.unref();
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failure: Error | undefined;
  worker.on('message', (reply: AuditReply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error !== undefined) waiter?.reject(new Error(`audit database: ${reply.error}`));
    else waiter?.resolve(reply.result);
  });
  const failAll = (error: Error) => {
    failure = error;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the audit database's thread ended (exit code ${code})`)));
  const call = <T>(message: Call): Promise<T> =>
    failure
      ? Promise.reject(failure)
      : new Promise<T>((resolve, reject) => {
          const id = nextId++;
          pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
          worker.postMessage({ ...message, id });
        });
  // The first call answers once the database is open, or with why it could not be.
  await call<number>({ op: 'deleteBefore', time: '' });
  return {
    append: (records) => call<void>({ op: 'append', records }),
    query: (query) => call<AuditPage>({ op: 'query', query }),
    deleteBefore: (time) => call<number>({ op: 'deleteBefore', time }),
    async close() {
      if (failure) return;
      await call<void>({ op: 'close' });
      await worker.terminate();
    },
  };
}
