import type { Decision } from '../authz/authorizer.js';
/**
 * Ends watches whose caller has lost the access the watch was opened with (docs/access-control.md, "When watches
 * end"). Each watch is kept with its caller: the principal, and through it the session or token it authenticated
 * with. Event-driven: a role or binding change re-authorizes every open watch, a change to a user, session, token or
 * password re-checks that user's watches, and a timer fires at the earliest expiry of the watch's session or token.
 * Delivery itself checks nothing, so watching costs the same however many watchers there are.
 *
 * A watch that may no longer continue gets an ERROR event carrying a status, as a 410 does, and ends: 401 when its
 * credential is gone (session ended or expired, token revoked, deleted or expired, user disabled or deleted, password
 * changed under HTTP Basic), 403 when the credential holds but no role allows `watch` any more (401 for an anonymous
 * watch, as the gate answers).
 */
import type { Principal } from '../authz/principal.js';
import type { Attributes } from '../authz/rules.js';
import { pluginOf } from '../objects/owner.js';
import type { ServedModel } from '../registry/model-registry.js';
import { statusObject, type WatchStatus } from './events.js';
import type { Watcher } from './watcher.js';

/** What access is read from and followed in: the role service, users, sessions, tokens and passwords. */
export interface WatchAccessDeps {
  roles: {
    authorize(principal: Principal, attributes: Attributes): Decision;
    onChange(listener: () => void): unknown;
  };
  users: {
    isActive(username: string): boolean;
    onLostAccess(listener: (username: string) => void): unknown;
  };
  sessions: {
    expiryOf(key: string): Promise<number | undefined>;
    onEnded(listener: (key: string) => void): unknown;
  };
  tokens: {
    check(name: string): { valid: boolean; expiresAtMs: number | undefined };
    onChanged(listener: (name: string, username: string) => void): unknown;
  };
  /** Password changes: a watch authenticated with HTTP Basic used the old one. */
  credentials: { onChanged(listener: (username: string) => void): unknown };
  onError: (error: unknown) => void;
  now?: () => number;
}

interface Entry {
  readonly watcher: Watcher;
  readonly principal: Principal;
  readonly attributes: Attributes;
  /** Set when a signal says the credential is gone (session ended, password changed): the 401's message. */
  gone?: string;
  timer?: NodeJS.Timeout;
}

/** setTimeout's longest delay; a later expiry is re-armed when this fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;
const SESSION_GONE = 'the session has ended or expired; sign in again';

export class WatchAccess {
  private readonly all = new Set<Entry>();
  private readonly byUser = new Map<string, Set<Entry>>();
  private readonly bySession = new Map<string, Set<Entry>>();
  private readonly now: () => number;

  constructor(private readonly deps: WatchAccessDeps) {
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
    deps.roles.onChange(guarded(() => this.recheck(this.all)));
    deps.users.onLostAccess(guarded((username) => this.recheck(this.byUser.get(username))));
    deps.tokens.onChanged(guarded((_name, username) => this.recheck(this.byUser.get(username))));
    deps.sessions.onEnded(guarded((key) => this.recheck(this.bySession.get(key), SESSION_GONE)));
    deps.credentials.onChanged(
      guarded((username) => {
        const basic = [...(this.byUser.get(username) ?? [])].filter((e) => e.principal.via === 'basic');
        this.recheck(basic, 'the password has changed; authenticate again');
      }),
    );
  }

  /** How many open watches are followed (for tests and diagnostics). */
  get size(): number {
    return this.all.size;
  }

  /**
   * Ties `watcher` to its caller until it ends. Checked at once too: access may have changed between the gate's
   * decision and now (a WebSocket upgrade, for instance).
   */
  follow(watcher: Watcher, principal: Principal): void {
    const entry: Entry = { watcher, principal, attributes: watchAttributes(watcher.served) };
    this.all.add(entry);
    if (principal.username !== undefined) addTo(this.byUser, principal.username, entry);
    if (principal.sessionId !== undefined) addTo(this.bySession, principal.sessionId, entry);
    watcher.onEnd(() => {
      clearTimeout(entry.timer);
      this.all.delete(entry);
      if (principal.username !== undefined) removeFrom(this.byUser, principal.username, entry);
      if (principal.sessionId !== undefined) removeFrom(this.bySession, principal.sessionId, entry);
    });
    this.check(entry);
    if (!watcher.isEnded) this.armExpiry(entry);
  }

  private recheck(entries: Iterable<Entry> | undefined, gone?: string): void {
    if (!entries) return;
    // Copied: a watch that ends leaves the set being walked.
    for (const entry of [...entries]) {
      if (gone !== undefined) entry.gone = gone;
      this.check(entry);
    }
  }

  private check(entry: Entry): void {
    const status = this.verdict(entry);
    if (status) entry.watcher.fail(status);
  }

  /** Why the watch may not go on, or undefined while it may: the credential first, then the roles. */
  private verdict(entry: Entry): WatchStatus | undefined {
    const { principal } = entry;
    const gone = entry.gone ?? this.credentialGone(principal);
    if (gone !== undefined) return statusObject(401, 'Unauthorized', gone);
    const decision = this.deps.roles.authorize(principal, entry.attributes);
    if (decision.allowed) return undefined;
    if (principal.username === undefined)
      return statusObject(401, 'Unauthorized', `sign in to watch this: ${decision.reason}`);
    return statusObject(403, 'Forbidden', `user "${principal.username}" may no longer watch this: ${decision.reason}`);
  }

  /** What memory says of the credential; a session's end arrives as a signal instead (see the constructor). */
  private credentialGone(principal: Principal): string | undefined {
    const { username, via, tokenName } = principal;
    if (username === undefined) return undefined;
    if (!this.deps.users.isActive(username)) return `user "${username}" is disabled or no longer exists`;
    if (via === 'token' && (tokenName === undefined || !this.deps.tokens.check(tokenName).valid)) {
      return 'the access token has been revoked, deleted or has expired';
    }
    return undefined;
  }

  /** A timer at the credential's expiry: a token's `expiresAt`, a session's idle timeout or maximum age. */
  private armExpiry(entry: Entry): void {
    const { via, tokenName, sessionId } = entry.principal;
    if (via === 'token' && tokenName !== undefined) {
      const { expiresAtMs } = this.deps.tokens.check(tokenName);
      if (expiresAtMs !== undefined) this.at(entry, expiresAtMs, () => this.check(entry));
    } else if (via === 'session' && sessionId !== undefined) {
      // Other requests with the session push its idle expiry later; the watch itself does not count as use.
      this.deps.sessions.expiryOf(sessionId).then(
        (expiry) => {
          if (entry.watcher.isEnded) return;
          if (expiry === undefined) this.recheck([entry], SESSION_GONE);
          else this.at(entry, expiry);
        },
        (error: unknown) => {
          this.deps.onError(error);
          // Unchecked is not allowed: end it, the client resumes from the last resourceVersion received.
          entry.watcher.fail(statusObject(500, 'InternalError', 'the session could not be checked; watch again'));
        },
      );
    }
  }

  /** Runs `task` at `when` (then looks at the expiry again, in case it moved or was beyond setTimeout's reach). */
  private at(entry: Entry, when: number, task?: () => void): void {
    clearTimeout(entry.timer);
    const delay = Math.min(Math.max(when - this.now(), 0), MAX_DELAY_MS);
    entry.timer = setTimeout(() => {
      task?.();
      if (!entry.watcher.isEnded) this.armExpiry(entry);
    }, delay);
    entry.timer.unref();
  }
}

/**
 * The attributes the gate authorized the watch with: `watch` on the model's collection. Derived from the model
 * served, which is the one the request's path named; the plugin is filled in as the gate's attribute resolver does.
 */
export function watchAttributes(served: ServedModel): Attributes {
  const { group, version, plural } = served.model;
  const attributes: Attributes = {
    isResourceRequest: true,
    verb: 'watch',
    path: group === '' ? `/api/${version}/${plural}` : `/apis/${group}/${version}/${plural}`,
    apiGroup: group,
    resource: plural,
    subresource: '',
    name: '',
  };
  const plugin = pluginOf(served.owner);
  if (plugin !== undefined) attributes.plugin = plugin;
  return attributes;
}

function addTo(index: Map<string, Set<Entry>>, key: string, entry: Entry): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(entry);
}

function removeFrom(index: Map<string, Set<Entry>>, key: string, entry: Entry): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(entry);
  if (set.size === 0) index.delete(key);
}
