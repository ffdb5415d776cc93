/**
 * The worker thread that owns the embedded store's audit database (audit-sqlite.ts starts it): appending a batch of
 * events, with its indexes and the WAL's checkpoints, costs the main thread nothing but a message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { AuditCall, AuditReply } from './audit-sqlite.js';
import { openAuditDatabase } from './audit-sqlite-db.js';

const database = openAuditDatabase((workerData as { path: string }).path);

parentPort!.on('message', (call: AuditCall) => {
  let reply: AuditReply;
  try {
    const result =
      call.op === 'append'
        ? database.append(call.records)
        : call.op === 'query'
          ? database.query(call.query)
          : call.op === 'deleteBefore'
            ? database.deleteBefore(call.time)
            : database.close();
    reply = { id: call.id, result };
  } catch (error) {
    reply = { id: call.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
  if (call.op === 'close') parentPort!.close();
});
