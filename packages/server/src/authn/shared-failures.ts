import { randomBytes } from 'node:crypto';
import { SIGN_IN_FAILURES_RECORDS } from '@svc/plugin-api';
import type { SecretStore } from '../store/types.js';
import { KeyedQueue } from '../util/keyed-queue.js';
import type { FailureSharing } from './login-tallies.js';
import { digestOf } from './secrets.js';

/** The secret records of sign-in failures, one per replica and tally key; never in a backup (cli/export-command.ts). */

interface FailureRecord {
  /** The tally key (`c:<client>`, `p:<client> <username>`, `u:<username>`). */
  key: string;
  /** When each failure happened, oldest first. */
  failures: number[];
}

/** Other replicas' records held at most; beyond it the first heard are dropped (bounded memory under a spray). */
const MAX_HELD = 150_000;
const SWEEP_MS = 60_000;

/**
 * The sign-in throttle's failures shared among the replicas of a PostgreSQL store, so a client's limits and a
 * username's slow-down count every replica's failures. Each replica writes only its own records (one per tally key,
 * named by a random id of this process and the key's digest: no lost update between replicas, no username or address
 * in a name), and hears the others' through the store's notices, keeping them in memory: an attempt reads its tallies
 * without a query. A right password deletes the pair's records of every replica; a replica hearing its own record
 * deleted forgets those failures too. Attempts under way, and the one-check-at-a-time lanes, stay each replica's own.
 */
export class SharedSignInFailures implements FailureSharing {
  private readonly instance = randomBytes(6).toString('hex');
  /** Other replicas' failures: tally key → record name → times. */
  private readonly others = new Map<string, Map<string, number[]>>();
  /** The tally key of each record of others held (a deletion's notice names only the record). */
  private readonly keyOfRecord = new Map<string, string>();
  /** This process's records: name → tally key and the time of its latest failure. */
  private readonly own = new Map<string, { key: string; last: number }>();
  /** Writes and reads of one record in order, so a notice's read sees this process's own writes before it. */
  private readonly io = new KeyedQueue();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly secrets: SecretStore,
    private readonly windowMs: number,
    private readonly now: () => number,
    /** Another replica forgot a key's failures: this replica's go too. */
    private readonly forgetHere: (key: string) => void,
    private readonly onError: (error: unknown) => void,
  ) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  elsewhere(key: string, now: number): readonly number[] {
    const records = this.others.get(key);
    if (!records) return [];
    const times: number[] = [];
    for (const failures of records.values()) for (const at of failures) if (now - at < this.windowMs) times.push(at);
    return times;
  }

  publish(key: string, failures: readonly number[]): void {
    const name = `${this.instance}.${digestOf(key)}`;
    if (failures.length === 0) {
      if (!this.own.delete(name)) return;
      this.write(name, () => this.secrets.delete(SIGN_IN_FAILURES_RECORDS, name));
      return;
    }
    this.own.set(name, { key, last: failures[failures.length - 1]! });
    const value = Buffer.from(JSON.stringify({ key, failures: [...failures] } satisfies FailureRecord));
    this.write(name, () => this.secrets.put(SIGN_IN_FAILURES_RECORDS, name, value));
  }

  forgetElsewhere(key: string): void {
    const records = this.others.get(key);
    if (!records) return;
    this.others.delete(key);
    for (const name of records.keys()) {
      this.keyOfRecord.delete(name);
      this.write(name, () => this.secrets.delete(SIGN_IN_FAILURES_RECORDS, name));
    }
  }

  /** A notice: record `name` changed, here or on another replica. */
  heard(name: string): void {
    this.write(name, async () => {
      const value = await this.secrets.get(SIGN_IN_FAILURES_RECORDS, name);
      const mine = this.own.get(name);
      if (mine) {
        // Gone while this process still counts it: another replica's right password deleted it.
        if (!value) {
          this.own.delete(name);
          this.forgetHere(mine.key);
        }
        return;
      }
      if (name.startsWith(`${this.instance}.`)) return;
      const record = value ? parseRecord(value) : undefined;
      if (record) this.hold(name, record);
      else this.drop(name);
    });
  }

  /** Reads every record again (at start, and when notices may have been missed); drops expired leftovers. */
  async reload(): Promise<void> {
    const now = this.now();
    for await (const batch of this.secrets.scan(SIGN_IN_FAILURES_RECORDS)) {
      for (const [name, value] of batch) {
        if (name.startsWith(`${this.instance}.`)) continue;
        const record = parseRecord(value);
        if (record?.failures.some((at) => now - at < this.windowMs)) this.hold(name, record);
        else {
          // A replica that stopped left it behind, expired: nobody else will remove it.
          this.drop(name);
          this.write(name, () => this.secrets.delete(SIGN_IN_FAILURES_RECORDS, name));
        }
      }
    }
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private hold(name: string, record: FailureRecord): void {
    const previous = this.keyOfRecord.get(name);
    if (previous !== undefined && previous !== record.key) this.drop(name);
    let records = this.others.get(record.key);
    if (!records) this.others.set(record.key, (records = new Map()));
    records.set(name, record.failures);
    this.keyOfRecord.set(name, record.key);
    if (this.keyOfRecord.size > MAX_HELD) this.drop(this.keyOfRecord.keys().next().value!);
  }

  private drop(name: string): void {
    const key = this.keyOfRecord.get(name);
    if (key === undefined) return;
    this.keyOfRecord.delete(name);
    const records = this.others.get(key);
    records?.delete(name);
    if (records?.size === 0) this.others.delete(key);
  }

  /** Removes this process's expired records, and forgets others' expired ones (their replica removes them). */
  private sweep(): void {
    const now = this.now();
    for (const [name, { last }] of this.own) {
      if (now - last < this.windowMs) continue;
      this.own.delete(name);
      this.write(name, () => this.secrets.delete(SIGN_IN_FAILURES_RECORDS, name));
    }
    for (const [name, key] of this.keyOfRecord) {
      const failures = this.others.get(key)?.get(name) ?? [];
      if (!failures.some((at) => now - at < this.windowMs)) this.drop(name);
    }
  }

  private write(name: string, task: () => Promise<unknown>): void {
    void this.io.run(name, task).catch(this.onError);
  }
}

/** A record as another replica wrote it; undefined when it is not one (nothing to count). */
function parseRecord(value: Buffer): FailureRecord | undefined {
  try {
    const parsed = JSON.parse(value.toString('utf8')) as Partial<FailureRecord>;
    if (typeof parsed.key !== 'string' || !Array.isArray(parsed.failures)) return undefined;
    const failures = parsed.failures.filter((at): at is number => typeof at === 'number' && Number.isFinite(at));
    return { key: parsed.key, failures };
  } catch {
    return undefined;
  }
}
