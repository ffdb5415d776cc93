import { tooManyRequests } from '@svc/plugin-api';

export interface LoginLimits {
  /** Failures allowed within `windowMs` before further attempts are refused. */
  maxFailures: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = Object.freeze({ maxFailures: 5, windowMs: 5 * 60_000 });

/** Keys tracked at most, per kind; beyond it the oldest are forgotten (memory stays bounded under a spray attack). */
const MAX_TRACKED = 50_000;

/**
 * Failed password checks, counted per client address and per username in a sliding window (CONTRACT section 6: 429
 * with Retry-After). Once either count reaches the limit, attempts are refused without checking the password, so an
 * attacker cannot keep guessing and cannot make the server hash on demand. A successful login clears both counts.
 */
export class LoginLimiter {
  private readonly byClient = new Map<string, number[]>();
  private readonly byUser = new Map<string, number[]>();

  constructor(
    private readonly limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws a 429 with Retry-After when this client or this username has failed too often recently. */
  check(client: string, username: string): void {
    const now = this.now();
    const wait = Math.max(this.waitFor(this.byClient, client, now), this.waitFor(this.byUser, username, now));
    if (wait > 0) {
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      throw tooManyRequests(`too many failed sign-in attempts; try again in ${seconds} seconds`, seconds);
    }
  }

  recordFailure(client: string, username: string): void {
    const now = this.now();
    this.push(this.byClient, client, now);
    this.push(this.byUser, username, now);
  }

  recordSuccess(client: string, username: string): void {
    this.byClient.delete(client);
    this.byUser.delete(username);
  }

  /** Milliseconds until an attempt is allowed again (0: allowed now). */
  private waitFor(map: Map<string, number[]>, key: string, now: number): number {
    const failures = this.recent(map, key, now);
    if (failures.length < this.limits.maxFailures) return 0;
    // The attempt becomes allowed when enough of the oldest failures have left the window.
    const oldestCounted = failures[failures.length - this.limits.maxFailures]!;
    return oldestCounted + this.limits.windowMs - now;
  }

  private recent(map: Map<string, number[]>, key: string, now: number): number[] {
    const failures = map.get(key);
    if (!failures) return [];
    const kept = failures.filter((at) => now - at < this.limits.windowMs);
    if (kept.length === 0) map.delete(key);
    else if (kept.length !== failures.length) map.set(key, kept);
    return kept;
  }

  private push(map: Map<string, number[]>, key: string, now: number): void {
    const failures = this.recent(map, key, now);
    failures.push(now);
    // Only the last `maxFailures` matter for the decision.
    if (failures.length > this.limits.maxFailures) failures.splice(0, failures.length - this.limits.maxFailures);
    // Re-inserting moves the key to the end of the Map's order, so the first keys are the least recently failed.
    map.delete(key);
    map.set(key, failures);
    if (map.size > MAX_TRACKED) map.delete(map.keys().next().value!);
  }
}
