/**
 * Where audit events go: a file of JSON lines (SVC_AUDIT_LOG; rotated by size, rotating-file-stream), standard output
 * (`-`), and the store (store/audit-store.ts), which queries read. Writing is never on the request's path: events
 * queue and leave in batches, and a sink that fails says so in the log without holding requests up.
 */

import type { Logger } from 'pino';
import { createStream, type RotatingFileStream } from 'rotating-file-stream';
import type { AuditRecord, AuditStore } from '../store/audit-store.js';
import type { AuditEvent } from './event.js';

export interface AuditSink {
  write(event: AuditEvent, json: string): void;
  /** Writes what is queued. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** JSON lines into `path`, a new file once it passes `maxSize` (`100M`), keeping `maxFiles` old ones. */
export function fileSink(path: string, options: { maxSize: string; maxFiles: number }): AuditSink {
  if (path === '-') {
    return {
      write: (_event, json) => void process.stdout.write(`${json}\n`),
      flush: async () => undefined,
      close: async () => undefined,
    };
  }
  const stream: RotatingFileStream = createStream(path.split('/').pop()!, {
    path: path.slice(0, path.lastIndexOf('/') + 1) || '.',
    size: options.maxSize,
    maxFiles: options.maxFiles,
    mode: 0o600,
  });
  return {
    write: (_event, json) => void stream.write(`${json}\n`),
    // A write's callback runs once what was written before it is in the file.
    flush: () => new Promise((resolve) => void stream.write('', () => resolve())),
    close: () => new Promise((resolve) => stream.end(() => resolve())),
  };
}

/**
 * Events into the store, a batch at a time (at most every 250 ms, or at 2,000 events), deleting those past the
 * retention hourly. Few, large batches: each is one message to the embedded store's worker and one transaction there.
 */
const BATCH_SIZE = 2000;
const BATCH_INTERVAL_MS = 250;

export function storeSink(store: AuditStore, logger: Logger, retentionMs: number): AuditSink {
  let queue: AuditRecord[] = [];
  let writing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const drain = () => {
    timer = undefined;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return writing;
    writing = writing
      .then(() => store.append(batch))
      .catch((error: unknown) => logger.error({ err: error, events: batch.length }, 'writing audit events failed'));
    return writing;
  };
  const prune = () =>
    void store
      .deleteBefore(new Date(Date.now() - retentionMs).toISOString())
      .catch((error: unknown) => logger.error({ err: error }, 'deleting old audit events failed'));
  prune();
  const pruning = setInterval(prune, 3_600_000);
  pruning.unref();
  return {
    write(event, json) {
      queue.push({
        time: event.requestReceivedTimestamp,
        username: event.user.username,
        verb: event.verb,
        resource: event.objectRef?.resource ?? '',
        name: event.objectRef?.name ?? '',
        event: json,
      });
      if (queue.length >= BATCH_SIZE) void drain();
      else timer ??= setTimeout(() => void drain(), BATCH_INTERVAL_MS);
    },
    flush: () => {
      if (timer) clearTimeout(timer);
      return drain();
    },
    async close() {
      clearInterval(pruning);
      if (timer) clearTimeout(timer);
      await drain();
      await store.close();
    },
  };
}
