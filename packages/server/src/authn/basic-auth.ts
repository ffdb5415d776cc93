import { LRUCache } from 'lru-cache';
import type { Credentials } from './credentials.js';
import type { LoginLimiter } from './login-limiter.js';
import { digestOf } from './secrets.js';
import type { UserDirectory } from './user-directory.js';

/** How long a verified Basic credential is trusted without hashing the password again. */
const VERIFIED_TTL_MS = 5 * 60_000;

export type BasicOutcome = { username: string } | { failure: 'malformed' | 'rejected' };

/**
 * HTTP Basic (only when SVC_BASIC_AUTH is on). Basic sends the password with every request, and a password check is
 * deliberately slow, so a credential that verified is remembered (by digest, never in clear) for a few minutes; a
 * password change forgets it at once. Failures count against the same limits as logins.
 */
export class BasicCredentials {
  private readonly verified = new LRUCache<string, string>({ max: 1000, ttl: VERIFIED_TTL_MS });

  constructor(
    private readonly credentials: Credentials,
    private readonly users: UserDirectory,
    private readonly limiter: LoginLimiter,
  ) {
    credentials.onChanged((username) => {
      for (const [key, owner] of this.verified.entries()) if (owner === username) this.verified.delete(key);
    });
  }

  /** `encoded` is what follows `Basic ` in the header. Throws a 429 when the client or user is rate limited. */
  async authenticate(encoded: string, client: string): Promise<BasicOutcome> {
    const key = digestOf(encoded);
    const known = this.verified.get(key);
    if (known !== undefined) return this.users.isActive(known) ? { username: known } : { failure: 'rejected' };
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return { failure: 'malformed' };
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const ok = await this.limiter.attempt(
      client,
      username,
      async () => (await this.credentials.verify(username, password)) && this.users.isActive(username),
    );
    if (!ok) return { failure: 'rejected' };
    this.verified.set(key, username);
    return { username };
  }
}
