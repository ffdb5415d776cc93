import { tooManyRequests } from '@svc/plugin-api';
import { MAX_NAME_LENGTH } from '../objects/names.js';
import { clientKeyOf } from './client-key.js';
import { type FailureSharing, Tallies } from './login-tallies.js';
import { digestOf } from './secrets.js';
import { UsernameLanes } from './username-lanes.js';

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
 * Every password check goes through `attempt`, which counts it from its start (attempts sent in parallel cannot slip
 * past a limit while the slow hash runs), runs it in its username's lane (username-lanes.ts: one check of a username
 * at a time, each after the username's delay, so parallel guesses from many clients are bounded too) and records its
 * outcome. Refused attempts are not counted. A client is its address, an IPv6 one its /64 (client-key.ts). On a shared
 * store the failures are those of every replica (shared-failures.ts); attempts under way are each replica's own.
 */
export class LoginLimiter {
  private readonly limits: LoginLimits;
  private readonly clock: LoginClock;
  private readonly byClient: Tallies;
  private readonly byPair: Tallies;
  private readonly byUser: Tallies;
  private readonly lanes: UsernameLanes;

  constructor(limits: Partial<LoginLimits> = {}, clock: Partial<LoginClock> = {}, sharing?: FailureSharing) {
    this.limits = { ...DEFAULT_LOGIN_LIMITS, ...limits };
    this.clock = { ...realClock, ...clock };
    const { windowMs, perClient, perClientAndUser, slowDownAfter, firstDelayMs, maxDelayMs } = this.limits;
    this.byClient = new Tallies('c:', windowMs, perClient, sharing);
    this.byPair = new Tallies('p:', windowMs, perClientAndUser, sharing);
    // Failures past the one that reaches the longest delay change nothing.
    const userKeep = slowDownAfter + Math.ceil(Math.log2(Math.max(1, maxDelayMs / firstDelayMs))) + 1;
    this.byUser = new Tallies('u:', windowMs, userKeep, sharing);
    this.lanes = new UsernameLanes((user) => this.delayOfUserKey(user), this.clock.sleep);
  }

  /**
   * One password check under the throttle. Throws a 429 when this client is refused for this username; otherwise
   * waits for the username's turn and delay, runs `check` (true: the password was right and the account may sign in)
   * and records its outcome before the next check of the username starts. Resolves with what `check` answered.
   */
  attempt(ip: string, username: string, check: () => Promise<boolean>): Promise<boolean> {
    const client = clientKeyOf(ip);
    const user = userKeyOf(username);
    const pair = `${client} ${user}`;
    const now = this.clock.now();
    const wait = Math.max(
      this.byPair.waitFor(pair, this.limits.perClientAndUser, now),
      this.byClient.waitFor(client, this.limits.perClient, now),
    );
    if (wait > 0) {
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      throw tooManyRequests(`too many failed sign-in attempts; try again in ${seconds} seconds`, seconds);
    }
    const clean = this.byPair.count(pair, now) === 0;
    this.byClient.begin(client, now);
    this.byPair.begin(pair, now);
    this.byUser.begin(user, now);
    return this.lanes.run(user, clean, async () => {
      let accepted: boolean;
      try {
        accepted = await check();
      } catch (error) {
        // No outcome (the store failed, say): the attempt stops counting, as neither a failure nor a success.
        for (const [tallies, key] of [
          [this.byClient, client],
          [this.byPair, pair],
          [this.byUser, user],
        ] as const)
          tallies.end(key);
        throw error;
      }
      if (accepted) this.recordSuccess(client, pair, user);
      else this.recordFailure(client, pair, user);
      return accepted;
    });
  }

  /**
   * The wait before the next check of `username`, from its recent failures anywhere, counting that check: nothing up
   * to `slowDownAfter`, then `firstDelayMs`, doubling each time, up to `maxDelayMs`.
   */
  delayFor(username: string): number {
    return this.delayOfUserKey(userKeyOf(username));
  }

  /**
   * What the throttle holds against a client (its address) and a username: failures within the window, of every
   * replica, and attempts under way here. For diagnostics, and for tests that wait for replicas to hear each other.
   */
  countsAgainst(ip: string, username: string): { client: number; pair: number; username: number } {
    const client = clientKeyOf(ip);
    const user = userKeyOf(username);
    const now = this.clock.now();
    return {
      client: this.byClient.count(client, now),
      pair: this.byPair.count(`${client} ${user}`, now),
      username: this.byUser.count(user, now),
    };
  }

  /** Checks of `username` waiting for their turn. */
  waitingFor(username: string): number {
    return this.lanes.waiting(userKeyOf(username));
  }

  /** Another replica forgot a shared key's failures (shared-failures.ts). */
  forgetHere(sharedKey: string): void {
    for (const tallies of [this.byClient, this.byPair, this.byUser]) {
      if (sharedKey.startsWith(tallies.prefix)) tallies.forgetHere(sharedKey.slice(tallies.prefix.length));
    }
  }

  private delayOfUserKey(user: string): number {
    const excess = this.byUser.failures(user, this.clock.now()).length + 1 - this.limits.slowDownAfter;
    if (excess <= 0) return 0;
    return Math.min(this.limits.firstDelayMs * 2 ** Math.min(excess - 1, 30), this.limits.maxDelayMs);
  }

  private recordFailure(client: string, pair: string, user: string): void {
    const now = this.clock.now();
    this.byClient.fail(client, now);
    this.byPair.fail(pair, now);
    this.byUser.fail(user, now);
  }

  /**
   * The password was right: this client's failures for this username are forgotten. Its failures for other usernames
   * and the username's failures from elsewhere stay (signing in to one's own account must not reset a spray's count).
   */
  private recordSuccess(client: string, pair: string, user: string): void {
    this.byClient.end(client);
    this.byPair.end(pair, true);
    this.byUser.end(user);
  }
}

/** A username as the tallies key it: one longer than any name can be by its digest, so what a stranger sends cannot grow memory per key. */
function userKeyOf(username: string): string {
  return username.length <= MAX_NAME_LENGTH ? username : `#${digestOf(username)}`;
}
