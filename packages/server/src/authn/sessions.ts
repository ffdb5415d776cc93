import { SESSIONS_RECORDS } from '@svc/plugin-api';
import { LRUCache } from 'lru-cache';
import type { Store } from '../store/types.js';
import { InternalRecords } from './internal-records.js';
import { digestOf, randomSecret, sameSecret } from './secrets.js';

export interface SessionPolicy {
  /** A session unused for this long ends. */
  sessionIdleTimeoutMs: number;
  /** A session ends this long after login, however busy. */
  sessionMaxAgeMs: number;
}

interface SessionRecord {
  username: string;
  /** The groups the provider named at an OIDC sign-in (prefixed); absent for a local sign-in. */
  groups?: string[];
  /**
   * The ID token of an OIDC sign-in, kept (in the store's secret records, like the rest) only to name the session to
   * the provider when it ends there (`id_token_hint`); never a credential to svc.
   */
  idToken?: string;
  /** Digest of the session's CSRF token (the `XSRF-TOKEN` cookie). */
  xsrfDigest: string;
  /** Epoch milliseconds. */
  createdAt: number;
  lastSeenAt: number;
}

export interface Session extends SessionRecord {
  /** The digest of the session id: the store key, and what `Principal.sessionId` holds. Not a secret. */
  key: string;
  /** When `lastSeenAt` was last written to the store. */
  savedAt: number;
}

/** Written to the store at most this often per session: idle expiry needs only minute precision. */
const SAVE_INTERVAL_MS = 60_000;

/**
 * Login sessions. The store keeps them (by the digest of their id, never the id) so they survive a restart; an LRU
 * cache in front answers the lookups every cookie-authenticated request makes, so the hot path reads nothing from the
 * store.
 */
export class Sessions {
  private readonly records: InternalRecords<SessionRecord>;
  private readonly cache = new LRUCache<string, Session>({ max: 10_000 });
  /** Sessions ended recently, so a lookup that raced with the ending cannot bring one back into the cache. */
  private readonly ended = new LRUCache<string, true>({ max: 10_000 });
  private readonly endListeners = new Set<(key: string) => void>();

  constructor(
    store: Store,
    private readonly policy: SessionPolicy,
    private readonly onBackgroundError: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.records = new InternalRecords(store.secrets, SESSIONS_RECORDS);
  }

  /**
   * Starts a session; the id and CSRF token returned go to the client only (as cookies). `groups`: those an OIDC
   * sign-in's ID token named, which the session's requests carry as an ID token's would; `idToken`: that token.
   */
  async create(
    username: string,
    groups?: readonly string[],
    idToken?: string,
  ): Promise<{ id: string; xsrfToken: string; session: Session }> {
    const id = randomSecret();
    const xsrfToken = randomSecret();
    const now = this.now();
    const record: SessionRecord = { username, xsrfDigest: digestOf(xsrfToken), createdAt: now, lastSeenAt: now };
    if (groups) record.groups = [...groups];
    if (idToken) record.idToken = idToken;
    const key = digestOf(id);
    await this.records.put(key, record);
    const session: Session = { ...record, key, savedAt: now };
    this.cache.set(key, session);
    return { id, xsrfToken, session };
  }

  /** The live session with this id (the cookie's value), or undefined when it is unknown, ended or expired. */
  async find(id: string): Promise<Session | undefined> {
    const key = digestOf(id);
    let session = this.cache.get(key);
    if (!session) {
      const record = await this.records.get(key);
      if (!record || this.ended.has(key)) return undefined;
      session = { ...record, key, savedAt: record.lastSeenAt };
      this.cache.set(key, session);
    }
    const now = this.now();
    if (this.isExpired(session, now)) {
      void this.end(key).catch(this.onBackgroundError);
      return undefined;
    }
    this.touch(session, now);
    return session;
  }

  /** The OIDC sign-in's ID token of the session with this key (`Principal.sessionId`), if it has one. */
  async idTokenOf(key: string): Promise<string | undefined> {
    if (this.ended.has(key)) return undefined;
    return (this.cache.peek(key) ?? (await this.records.get(key)))?.idToken;
  }

  /** True when `token` (the `X-XSRF-TOKEN` header) is this session's CSRF token. */
  checkXsrf(session: Session, token: string | undefined): boolean {
    return token !== undefined && token !== '' && sameSecret(digestOf(token), session.xsrfDigest);
  }

  /** Ends one session, by its key (`Principal.sessionId`). */
  async end(key: string): Promise<void> {
    this.ended.set(key, true);
    this.cache.delete(key);
    // Told before the store write: whatever the session still holds open (watches) ends now, not after a round trip.
    this.tellEnded(key);
    await this.records.delete(key);
  }

  private tellEnded(key: string): void {
    for (const listener of this.endListeners) {
      try {
        listener(key);
      } catch (error) {
        this.onBackgroundError(error);
      }
    }
  }

  /**
   * Another server wrote or removed this session's record (a shared store): the cached copy goes, and if the record is
   * gone the session ended there, so it ends here too (its watches close).
   */
  async changedElsewhere(key: string): Promise<void> {
    this.cache.delete(key);
    if (this.ended.has(key) || (await this.records.get(key)) !== undefined) return;
    this.ended.set(key, true);
    this.tellEnded(key);
  }

  /** Notices from other servers may have been missed: every cached session is read again on its next use. */
  forgetCached(): void {
    this.cache.clear();
  }

  /** Listens for sessions ending (sign-out, password change, lost access, found expired), by key. */
  onEnded(listener: (key: string) => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /**
   * When the session with this key expires if it is not used before (its idle timeout, or its maximum age if sooner):
   * the first instant `find` refuses it. Undefined when it has ended or expired already. Does not count as use.
   */
  async expiryOf(key: string): Promise<number | undefined> {
    const session = this.cache.peek(key) ?? (await this.records.get(key));
    if (!session || this.ended.has(key)) return undefined;
    const expiry =
      Math.min(session.lastSeenAt + this.policy.sessionIdleTimeoutMs, session.createdAt + this.policy.sessionMaxAgeMs) +
      1;
    return expiry > this.now() ? expiry : undefined;
  }

  /** Ends every session of a user except `exceptKey`; returns how many ended. */
  async endSessionsOf(username: string, exceptKey?: string): Promise<number> {
    const doomed: string[] = [];
    for (const [key, session] of this.cache.entries()) {
      if (session.username === username && key !== exceptKey) doomed.push(key);
    }
    for await (const batch of this.records.entries()) {
      for (const [key, record] of batch) if (record.username === username && key !== exceptKey) doomed.push(key);
    }
    const unique = [...new Set(doomed)];
    await Promise.all(unique.map((key) => this.end(key)));
    return unique.length;
  }

  /** Removes expired sessions from the store (they are refused anyway; this only reclaims space). */
  async sweep(): Promise<number> {
    const now = this.now();
    const expired: string[] = [];
    for await (const batch of this.records.entries()) {
      for (const [key, record] of batch) if (this.isExpired(record, now)) expired.push(key);
    }
    for (const key of expired) await this.end(key);
    return expired.length;
  }

  private isExpired(session: SessionRecord, now: number): boolean {
    return (
      now - session.lastSeenAt > this.policy.sessionIdleTimeoutMs ||
      now - session.createdAt > this.policy.sessionMaxAgeMs
    );
  }

  /** Records use; writes it through to the store at most once a minute, off the request's path. */
  private touch(session: Session, now: number): void {
    session.lastSeenAt = now;
    if (now - session.savedAt < SAVE_INTERVAL_MS) return;
    session.savedAt = now;
    const { username, groups, idToken, xsrfDigest, createdAt, lastSeenAt } = session;
    const record: SessionRecord = { username, ...(groups ? { groups } : {}), xsrfDigest, createdAt, lastSeenAt };
    if (idToken) record.idToken = idToken;
    void this.records.replace(session.key, record).catch(this.onBackgroundError);
  }
}
