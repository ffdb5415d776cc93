/** Keys tracked at most, per kind; beyond it the least recently failed are forgotten (bounded memory under a spray). */
const MAX_TRACKED = 50_000;
/** Retry-After when only attempts still being checked reach a limit: they may end at any moment. */
export const PENDING_RETRY_MS = 1_000;

/**
 * How a replica's failures reach the others of a shared store (shared-failures.ts). Keys are a tally's prefix and
 * its own key. A store only this process opens shares nothing (NOT_SHARED).
 */
export interface FailureSharing {
  /** When each failure of `key` that other replicas recorded happened, those within the window. */
  elsewhere(key: string, now: number): readonly number[];
  /** This replica's failures of `key` are now `failures`, oldest first (none: forgotten). */
  publish(key: string, failures: readonly number[]): void;
  /** A right password: the failures of `key` that other replicas recorded are forgotten as well. */
  forgetElsewhere(key: string): void;
}

export const NOT_SHARED: FailureSharing = {
  elsewhere: () => [],
  publish: () => undefined,
  forgetElsewhere: () => undefined,
};

interface Tally {
  /** When each failure within the window happened, oldest first. */
  failures: number[];
  /** Attempts being checked (LoginLimiter.attempt always reports their end, so none is left behind). */
  pending: number;
}

/**
 * Failures and attempts in progress per key, in a sliding window: this replica's own, plus (read at each question)
 * the failures other replicas of a shared store recorded.
 */
export class Tallies {
  private readonly map = new Map<string, Tally>();

  /** `keep`: failures kept per key at most, the most recent (the older ones no longer decide anything). */
  constructor(
    /** Names this kind of tally in what is shared (`c:` clients, `p:` client and username pairs, `u:` usernames). */
    readonly prefix: string,
    private readonly windowMs: number,
    private readonly keep: number,
    private readonly sharing: FailureSharing = NOT_SHARED,
  ) {}

  /** Failures (here and elsewhere) and attempts in progress here. */
  count(key: string, now: number): number {
    return this.failures(key, now).length + (this.current(key, now)?.pending ?? 0);
  }

  /** When each failure of `key` within the window happened, here or on another replica, oldest first. */
  failures(key: string, now: number): number[] {
    const local = this.current(key, now)?.failures ?? [];
    const elsewhere = this.sharing.elsewhere(this.prefix + key, now);
    return elsewhere.length === 0 ? local : [...local, ...elsewhere].sort((a, b) => a - b);
  }

  /** Milliseconds until one more attempt fits under `limit` (0: now). */
  waitFor(key: string, limit: number, now: number): number {
    const failures = this.failures(key, now);
    const pending = this.current(key, now)?.pending ?? 0;
    if (failures.length + pending < limit) return 0;
    if (failures.length < limit) return PENDING_RETRY_MS;
    // Allowed again when enough of the oldest failures have left the window.
    return failures[failures.length - limit]! + this.windowMs - now;
  }

  begin(key: string, now: number): void {
    this.touch(key, now).pending++;
  }

  fail(key: string, now: number): void {
    const tally = this.touch(key, now);
    tally.pending = Math.max(0, tally.pending - 1);
    tally.failures.push(now);
    if (tally.failures.length > this.keep) tally.failures.shift();
    this.sharing.publish(this.prefix + key, tally.failures);
  }

  /** An attempt ended without failing; `forgetFailures`: the key's failures go too, here and elsewhere. */
  end(key: string, forgetFailures = false): void {
    const tally = this.map.get(key);
    if (forgetFailures) {
      this.sharing.publish(this.prefix + key, []);
      this.sharing.forgetElsewhere(this.prefix + key);
    }
    if (!tally) return;
    tally.pending = Math.max(0, tally.pending - 1);
    if (forgetFailures) tally.failures = [];
    if (tally.failures.length === 0 && tally.pending === 0) this.map.delete(key);
  }

  /** Another replica forgot the key's failures (a right password there): this replica's go too. */
  forgetHere(key: string): void {
    const tally = this.map.get(key);
    if (!tally) return;
    tally.failures = [];
    if (tally.pending === 0) this.map.delete(key);
  }

  /** The key's tally without what has expired; removed when nothing is left. */
  private current(key: string, now: number): Tally | undefined {
    const tally = this.map.get(key);
    if (!tally) return undefined;
    const start = tally.failures.findIndex((at) => now - at < this.windowMs);
    if (start !== 0) tally.failures = start === -1 ? [] : tally.failures.slice(start);
    if (tally.failures.length > 0 || tally.pending > 0) return tally;
    this.map.delete(key);
    return undefined;
  }

  /** The key's tally, moved to the end of the Map's order (the first keys are the least recently active). */
  private touch(key: string, now: number): Tally {
    const tally = this.current(key, now) ?? { failures: [], pending: 0 };
    this.map.delete(key);
    this.map.set(key, tally);
    if (this.map.size > MAX_TRACKED) this.map.delete(this.map.keys().next().value!);
    return tally;
  }
}
