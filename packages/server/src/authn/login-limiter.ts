import { tooManyRequests } from '@svc/plugin-api';

export interface LoginLimits {
  /** How long a failure counts. */
  windowMs: number;
  /** Failures one client may make for one username within the window; its next attempt for that username is refused. */
  perClientAndUser: number;
  /** Failures one client may make within the window, whatever the usernames; its next attempt is refused. */
  perClient: number;
  /** Failures for one username, from any client, after which its password checks slow down (never refused). */
  slowDownAfter: number;
  /** The first slow-down; it doubles with every further failure, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = Object.freeze({
  windowMs: 5 * 60_000,
  perClientAndUser: 5,
  perClient: 20,
  slowDownAfter: 5,
  firstDelayMs: 500,
  maxDelayMs: 4_000,
});

/** Keys tracked at most, per kind; beyond it the least recently failed are forgotten (bounded memory under a spray). */
const MAX_TRACKED = 50_000;
/** An attempt with no outcome after this long (its caller threw before reporting) stops counting. */
const PENDING_MS = 60_000;
/** Retry-After when only attempts still being checked reach a limit: they end within a moment. */
const PENDING_RETRY_MS = 1_000;

export interface LoginClock {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

const realClock: LoginClock = { now: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * Sign-in throttling after OWASP's guidance on credential stuffing: a client is refused (429 with Retry-After) after
 * too many failures, for one username or for all, but a username attacked from many clients is only slowed down, so a
 * stranger cannot lock its owner out: the owner still signs in from their own client, a few seconds late at worst.
 *
 * Password checks are counted when they start (`check`), not when they fail, so attempts sent in parallel cannot slip
 * past a limit while the slow hash runs; `recordFailure` and `recordSuccess` report the outcome. Refused attempts are
 * not counted.
 */
export class LoginLimiter {
  private readonly limits: LoginLimits;
  private readonly clock: LoginClock;
  private readonly byClient: Tallies;
  private readonly byPair: Tallies;
  private readonly byUser: Tallies;

  constructor(limits: Partial<LoginLimits> = {}, clock: Partial<LoginClock> = {}) {
    this.limits = { ...DEFAULT_LOGIN_LIMITS, ...limits };
    this.clock = { ...realClock, ...clock };
    const { windowMs, perClient, perClientAndUser, slowDownAfter, firstDelayMs, maxDelayMs } = this.limits;
    this.byClient = new Tallies(windowMs, perClient);
    this.byPair = new Tallies(windowMs, perClientAndUser);
    // Failures past the one that reaches the longest delay change nothing.
    this.byUser = new Tallies(
      windowMs,
      slowDownAfter + Math.ceil(Math.log2(Math.max(1, maxDelayMs / firstDelayMs))) + 1,
    );
  }

  /** Before a password check: throws a 429 when this client is refused for this username; counts the attempt. */
  check(client: string, username: string): void {
    const now = this.clock.now();
    const pair = pairKey(client, username);
    const wait = Math.max(
      this.byPair.waitFor(pair, this.limits.perClientAndUser, now),
      this.byClient.waitFor(client, this.limits.perClient, now),
    );
    if (wait > 0) {
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      throw tooManyRequests(`too many failed sign-in attempts; try again in ${seconds} seconds`, seconds);
    }
    this.byClient.begin(client, now);
    this.byPair.begin(pair, now);
    this.byUser.begin(username, now);
  }

  /**
   * Waits before a password check of `username` in proportion to the recent failures for it from anywhere, counting the
   * attempt being made: nothing up to `slowDownAfter`, then `firstDelayMs`, doubling each time, up to `maxDelayMs`.
   */
  slowDown(username: string): Promise<void> {
    const delay = this.delayFor(username);
    return delay > 0 ? this.clock.sleep(delay) : Promise.resolve();
  }

  delayFor(username: string): number {
    const excess = this.byUser.count(username, this.clock.now()) - this.limits.slowDownAfter;
    if (excess <= 0) return 0;
    return Math.min(this.limits.firstDelayMs * 2 ** Math.min(excess - 1, 30), this.limits.maxDelayMs);
  }

  recordFailure(client: string, username: string): void {
    const now = this.clock.now();
    this.byClient.fail(client, now);
    this.byPair.fail(pairKey(client, username), now);
    this.byUser.fail(username, now);
  }

  /**
   * The password was right: this client's failures for this username are forgotten. Its failures for other usernames
   * and the username's failures from elsewhere stay (signing in to one's own account must not reset a spray's count).
   */
  recordSuccess(client: string, username: string): void {
    this.byClient.end(client);
    this.byPair.end(pairKey(client, username), true);
    this.byUser.end(username);
  }
}

const pairKey = (client: string, username: string) => `${client}\u0000${username}`;

interface Tally {
  /** When each failure within the window happened, oldest first. */
  failures: number[];
  /** When each attempt still being checked started. */
  pending: number[];
}

/** Failures and attempts in progress per key, in a sliding window. */
class Tallies {
  private readonly map = new Map<string, Tally>();

  /** `keep`: failures kept per key at most, the most recent (the older ones no longer decide anything). */
  constructor(
    private readonly windowMs: number,
    private readonly keep: number,
  ) {}

  count(key: string, now: number): number {
    const tally = this.current(key, now);
    return tally ? tally.failures.length + tally.pending.length : 0;
  }

  /** Milliseconds until one more attempt fits under `limit` (0: now). */
  waitFor(key: string, limit: number, now: number): number {
    const tally = this.current(key, now);
    if (!tally || tally.failures.length + tally.pending.length < limit) return 0;
    if (tally.failures.length < limit) return PENDING_RETRY_MS;
    // Allowed again when enough of the oldest failures have left the window.
    return tally.failures[tally.failures.length - limit]! + this.windowMs - now;
  }

  begin(key: string, now: number): void {
    this.touch(key, now).pending.push(now);
  }

  fail(key: string, now: number): void {
    const tally = this.touch(key, now);
    tally.pending.shift();
    tally.failures.push(now);
    if (tally.failures.length > this.keep) tally.failures.shift();
  }

  end(key: string, forgetFailures = false): void {
    const tally = this.map.get(key);
    if (!tally) return;
    tally.pending.shift();
    if (forgetFailures) tally.failures = [];
    if (tally.failures.length === 0 && tally.pending.length === 0) this.map.delete(key);
  }

  /** The key's tally without what has expired; removed when nothing is left. */
  private current(key: string, now: number): Tally | undefined {
    const tally = this.map.get(key);
    if (!tally) return undefined;
    const start = tally.failures.findIndex((at) => now - at < this.windowMs);
    if (start !== 0) tally.failures = start === -1 ? [] : tally.failures.slice(start);
    while (tally.pending.length > 0 && now - tally.pending[0]! >= PENDING_MS) tally.pending.shift();
    if (tally.failures.length > 0 || tally.pending.length > 0) return tally;
    this.map.delete(key);
    return undefined;
  }

  /** The key's tally, moved to the end of the Map's order (the first keys are the least recently active). */
  private touch(key: string, now: number): Tally {
    const tally = this.current(key, now) ?? { failures: [], pending: [] };
    this.map.delete(key);
    this.map.set(key, tally);
    if (this.map.size > MAX_TRACKED) this.map.delete(this.map.keys().next().value!);
    return tally;
  }
}
