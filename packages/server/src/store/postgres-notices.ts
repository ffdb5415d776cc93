/**
 * Notices from the other servers of a PostgreSQL store, over LISTEN/NOTIFY on one dedicated connection. Writers
 * notify in their own transaction (delivered at commit, dropped on rollback): `r<revision>` for a revision,
 * `s["kind","name"]` for a secret record. A notice can still be missed (the connection breaks and is made again), so
 * every (re)connection is reported as `reset`: the caller then re-reads, and a change feed polls besides.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { StoreNotice } from './types.js';

const RECONNECT_MS = [100, 250, 500, 1000, 2000];

export class PostgresNotices {
  /** Names this store in the notices its own writes send, so it does not hear them as another server's. */
  readonly instance = randomBytes(6).toString('hex');
  private readonly listeners = new Set<(notice: StoreNotice) => void>();
  private client: pg.Client | undefined;
  private connecting = false;
  private closed = false;
  private attempts = 0;

  constructor(
    private readonly connectionString: string,
    /** A plain identifier (postgres.ts derives it from the schema). */
    readonly channel: string,
  ) {}

  listen(listener: (notice: StoreNotice) => void): () => void {
    this.listeners.add(listener);
    if (!this.client && !this.connecting) void this.connect();
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    this.connecting = true;
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', (message) => this.receive(message.payload));
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      void client.end().catch(() => undefined);
      this.retry();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch {
      this.connecting = false;
      void client.end().catch(() => undefined);
      this.retry();
      return;
    }
    this.connecting = false;
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.attempts = 0;
    // Whatever was notified before LISTEN took effect was missed.
    this.emit({ type: 'reset' });
  }

  private retry(): void {
    if (this.closed) return;
    const delay = RECONNECT_MS[Math.min(this.attempts++, RECONNECT_MS.length - 1)]!;
    setTimeout(() => void this.connect(), delay).unref();
  }

  private receive(payload: string | undefined): void {
    const notice = parseNotice(payload, this.instance);
    if (notice) this.emit(notice);
  }

  private emit(notice: StoreNotice): void {
    for (const listener of this.listeners) listener(notice);
  }
}

/**
 * A notice's payload as written by postgres-queries.ts (`r<revision> <writer>`) and postgres-secrets.ts; undefined
 * for anything else, and for a revision this store (`self`) wrote: its own writes reach it without a notice.
 */
export function parseNotice(payload: string | undefined, self: string): StoreNotice | undefined {
  if (!payload) return undefined;
  if (payload[0] === 'r') {
    const [number, writer] = payload.slice(1).split(' ');
    const revision = Number(number);
    if (writer === self) return undefined;
    return Number.isSafeInteger(revision) && revision > 0 ? { type: 'revision', revision } : undefined;
  }
  if (payload[0] === 's') {
    try {
      const [kind, name] = JSON.parse(payload.slice(1)) as unknown[];
      if (typeof kind === 'string' && typeof name === 'string') return { type: 'secret', kind, name };
    } catch {
      return undefined;
    }
  }
  return undefined;
}
