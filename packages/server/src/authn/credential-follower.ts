/**
 * Follows the credential a long-lived stream was opened with (a watch, the console's events), so the stream ends when
 * the credential does and hears when its access may have changed (docs/access-control.md, "When watches end").
 *
 * Event-driven: one subscription to each signal, shared by every stream. A session's end ends the streams opened with
 * it; a password change ends the user's HTTP Basic streams; a user losing access or a token changing re-checks that
 * user's credentials; a role or binding change re-checks them all. A credential still good after a re-check tells its
 * streams their access may have changed. One timer per credential (not per stream) fires at the session's idle
 * timeout or maximum age, or the token's expiry. Delivery checks nothing, so a stream costs nothing per event.
 */
import { ApiError, unauthorized } from '@svc/plugin-api';
import type { Principal } from '../authz/principal.js';

/** One stream's side: told once when its credential ends, and whenever its access may have changed. */
export interface CredentialSubscriber {
  /** The credential has ended (401), or could not be checked (500); the subscriber is dropped after this. */
  ended(error: ApiError): void;
  /** Roles, bindings, the user or their tokens changed, and the credential still holds. */
  changed?(): void;
}

/** The signals followed, as ports: authentication's services and role management's changes (wired by main.ts). */
export interface CredentialFollowerDeps {
  roles: { onChange(listener: () => void): unknown };
  users: { isActive(username: string): boolean; onLostAccess(listener: (username: string) => void): unknown };
  sessions: { expiryOf(key: string): Promise<number | undefined>; onEnded(listener: (key: string) => void): unknown };
  tokens: {
    check(name: string): { valid: boolean; expiresAtMs: number | undefined };
    onChanged(listener: (name: string, username: string) => void): unknown;
  };
  /** Password changes: a stream authenticated with HTTP Basic used the old one. */
  passwords: { onChanged(listener: (username: string) => void): unknown };
  onError(error: unknown): void;
  now?: () => number;
}

/** One credential and the streams opened with it. */
interface Followed {
  readonly key: string;
  readonly principal: Principal;
  readonly subscribers: Set<CredentialSubscriber>;
  timer?: NodeJS.Timeout;
}

/** setTimeout's longest delay; a later expiry is looked at again when this fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;
const SESSION_GONE = 'the session has ended or expired; sign in again';
const ID_TOKEN_EXPIRED = 'the ID token has expired; open the stream again with a fresh one';
const PASSWORD_CHANGED = 'the password has changed; authenticate again';

export class CredentialFollower {
  private readonly byKey = new Map<string, Followed>();
  private readonly byUser = new Map<string, Set<Followed>>();
  private readonly now: () => number;

  constructor(private readonly deps: CredentialFollowerDeps) {
    this.now = deps.now ?? Date.now;
    const guarded =
      <A extends unknown[]>(listener: (...args: A) => void) =>
      (...args: A) => {
        try {
          listener(...args);
        } catch (error) {
          deps.onError(error);
        }
      };
    deps.roles.onChange(guarded(() => this.recheck(this.byKey.values())));
    deps.users.onLostAccess(guarded((username) => this.recheck(this.byUser.get(username))));
    deps.tokens.onChanged(guarded((_name, username) => this.recheck(this.byUser.get(username))));
    deps.sessions.onEnded(guarded((key) => this.end(this.byKey.get(`session ${key}`), unauthorized(SESSION_GONE))));
    deps.passwords.onChanged(
      guarded((username) => this.end(this.byKey.get(`basic ${username}`), unauthorized(PASSWORD_CHANGED))),
    );
  }

  /** How many streams are followed (for tests and diagnostics). */
  get size(): number {
    let count = 0;
    for (const followed of this.byKey.values()) count += followed.subscribers.size;
    return count;
  }

  /**
   * Follows `principal`'s credential for `subscriber` until the returned function is called (or the credential ends).
   * Checked at once: it may have ended since the gate let the request in (a WebSocket upgrade, for instance), in
   * which case `ended` is called before this returns.
   */
  follow(principal: Principal, subscriber: CredentialSubscriber): () => void {
    const key = keyOf(principal);
    let followed = this.byKey.get(key);
    const isNew = followed === undefined;
    if (!followed) {
      followed = { key, principal, subscribers: new Set() };
      this.byKey.set(key, followed);
      if (principal.username !== undefined) addTo(this.byUser, principal.username, followed);
    }
    followed.subscribers.add(subscriber);
    const stop = () => this.drop(followed, subscriber);
    const gone = this.goneReason(principal);
    if (gone !== undefined) this.end(followed, unauthorized(gone));
    else if (isNew) this.armExpiry(followed);
    return stop;
  }

  /** Re-checks credentials: those gone end, the others hear that access may have changed. */
  private recheck(credentials: Iterable<Followed> | undefined): void {
    if (!credentials) return;
    // Copied: an ending credential leaves the collection being walked.
    for (const followed of [...credentials]) {
      const gone = this.goneReason(followed.principal);
      if (gone !== undefined) this.end(followed, unauthorized(gone));
      else for (const subscriber of [...followed.subscribers]) this.tell(() => subscriber.changed?.());
    }
  }

  /** Ends every stream opened with the credential. */
  private end(followed: Followed | undefined, error: ApiError): void {
    if (!followed) return;
    for (const subscriber of [...followed.subscribers]) {
      this.drop(followed, subscriber);
      this.tell(() => subscriber.ended(error));
    }
  }

  private tell(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.deps.onError(error);
    }
  }

  private drop(followed: Followed, subscriber: CredentialSubscriber): void {
    if (!followed.subscribers.delete(subscriber) || followed.subscribers.size > 0) return;
    clearTimeout(followed.timer);
    this.byKey.delete(followed.key);
    const { username } = followed.principal;
    if (username === undefined) return;
    const mine = this.byUser.get(username);
    mine?.delete(followed);
    if (mine?.size === 0) this.byUser.delete(username);
  }

  /** What memory says of the credential; a session's end arrives as a signal or at its expiry instead. */
  private goneReason(principal: Principal): string | undefined {
    const { username, via, tokenName } = principal;
    if (username === undefined) return undefined;
    // A provider's user is not in the directory: their token is the whole credential, ended by its expiry.
    if (via === 'oidc') return undefined;
    if (!this.deps.users.isActive(username)) return `user "${username}" is disabled or no longer exists`;
    if (via === 'token' && (tokenName === undefined || !this.deps.tokens.check(tokenName).valid)) {
      return 'the access token has been revoked, deleted or has expired';
    }
    return undefined;
  }

  /** A timer at the credential's expiry: a token's `expiresAt`, a session's idle timeout or maximum age. */
  private armExpiry(followed: Followed): void {
    const { via, tokenName, sessionId, expiresAtMs } = followed.principal;
    if (via === 'oidc' && expiresAtMs !== undefined) {
      this.at(followed, expiresAtMs, () => this.end(followed, unauthorized(ID_TOKEN_EXPIRED)));
    } else if (via === 'token' && tokenName !== undefined) {
      const { expiresAtMs } = this.deps.tokens.check(tokenName);
      if (expiresAtMs !== undefined) this.at(followed, expiresAtMs, () => this.recheck([followed]));
    } else if (via === 'session' && sessionId !== undefined) {
      // Other requests with the session push its idle expiry later; a stream itself does not count as use.
      this.deps.sessions.expiryOf(sessionId).then(
        (expiry) => {
          if (followed.subscribers.size === 0) return;
          if (expiry === undefined) this.end(followed, unauthorized(SESSION_GONE));
          else this.at(followed, expiry);
        },
        (error: unknown) => {
          this.deps.onError(error);
          // Unchecked is not allowed: end it; the client opens the stream again (a watch resumes where it was).
          this.end(followed, new ApiError('InternalError', 'the session could not be checked; open the stream again'));
        },
      );
    }
  }

  /** Runs `task` at `when`, then looks at the expiry again (it may have moved, or been beyond setTimeout's reach). */
  private at(followed: Followed, when: number, task?: () => void): void {
    clearTimeout(followed.timer);
    const delay = Math.min(Math.max(when - this.now(), 0), MAX_DELAY_MS);
    followed.timer = setTimeout(() => {
      task?.();
      if (followed.subscribers.size > 0) this.armExpiry(followed);
    }, delay);
    followed.timer.unref();
  }
}

/** Which credential a principal authenticated with: streams with the same one share its signals and its timer. */
function keyOf(principal: Principal): string {
  if (principal.via === 'session' && principal.sessionId !== undefined) return `session ${principal.sessionId}`;
  if (principal.via === 'token' && principal.tokenName !== undefined) return `token ${principal.tokenName}`;
  // Two ID tokens of one user end at different times.
  if (principal.via === 'oidc') return `oidc ${principal.username} ${principal.expiresAtMs}`;
  return `${principal.via} ${principal.username ?? ''}`;
}

function addTo(index: Map<string, Set<Followed>>, key: string, followed: Followed): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(followed);
}
