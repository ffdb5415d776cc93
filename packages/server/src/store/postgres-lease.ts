/**
 * A lease among the servers of one PostgreSQL store: a session-level advisory lock held on a connection of its own.
 * PostgreSQL releases it when that connection ends, including when the holder is killed (its socket closes), so
 * another server takes it at its next attempt. Each new holder bumps the duty's epoch in `leases` (the fencing token,
 * and who holds it for diagnostics). The holder checks its connection every `heartbeatMs` and gives the lease up the
 * moment the check fails: it may already belong to someone else.
 */
import pg from 'pg';
import { SESSION_LIVENESS } from './postgres-liveness.js';
import type { Lease } from './types.js';

export interface LeaseOptions {
  connectionString: string;
  schema: string;
  /** The advisory lock's two keys. */
  keys: readonly [number, number];
  name: string;
  holder: string;
  /** How often a server that does not hold the lease tries to take it. */
  retryMs?: number;
  /** How often the holder checks its connection. */
  heartbeatMs?: number;
}

const ACQUIRE = 'SELECT pg_try_advisory_lock($1, $2) AS taken';
const RECORD = `
  INSERT INTO leases (name, epoch, holder, acquired_at) VALUES ($1, 1, $2, now())
  ON CONFLICT (name) DO UPDATE SET epoch = leases.epoch + 1, holder = EXCLUDED.holder, acquired_at = now()
  RETURNING epoch`;

export class PostgresLease implements Lease {
  held = false;
  epoch = 0;
  private readonly listeners = new Set<(held: boolean) => void>();
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  readonly name: string;

  constructor(private readonly options: LeaseOptions) {
    this.name = options.name;
    this.schedule(0);
  }

  onChange(listener: (held: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async release(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.lose();
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const { retryMs = 500, heartbeatMs = 1000 } = this.options;
    try {
      if (this.held) {
        await this.client!.query('SELECT 1');
      } else {
        await this.tryAcquire();
      }
    } catch {
      this.lose();
    }
    this.schedule(this.held ? heartbeatMs : retryMs);
  }

  private async tryAcquire(): Promise<void> {
    const { connectionString, schema, keys, name, holder } = this.options;
    if (!this.client) {
      const client = new pg.Client({
        connectionString,
        options: `-c search_path=${schema} ${SESSION_LIVENESS}`,
        query_timeout: 3000,
        // Names the connection in pg_stat_activity: which server competes for which lease.
        application_name: `svc lease ${name} ${holder}`.slice(0, 63),
      });
      // A connection that breaks takes the lock with it: give the lease up at once, not at the next heartbeat.
      const broken = () => {
        if (this.client === client) this.lose();
      };
      client.on('error', broken);
      client.on('end', broken);
      await client.connect();
      this.client = client;
    }
    const { rows } = await this.client.query<{ taken: boolean }>(ACQUIRE, [...keys]);
    if (!rows[0]?.taken || this.closed) return;
    const recorded = await this.client.query<{ epoch: string }>(RECORD, [name, holder]);
    this.epoch = Number(recorded.rows[0]!.epoch);
    this.held = true;
    for (const listener of this.listeners) listener(true);
  }

  /** Drops the connection (and with it the lock) and tells the listeners, if it was held. */
  private lose(): void {
    const client = this.client;
    this.client = undefined;
    void client?.end().catch(() => undefined);
    if (!this.held) return;
    this.held = false;
    this.epoch = 0;
    for (const listener of this.listeners) listener(false);
  }
}
