import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { invalid } from '@svc/plugin-api';

/**
 * Password hashes: scrypt (docs/api.md "Security"): it ships with Node, so no native build.
 * A hash is stored as `scrypt$<N>$<r>$<p>$<salt>$<key>` (base64url), so stronger parameters can be introduced later
 * without invalidating old hashes.
 */
export interface ScryptParameters {
  N: number;
  r: number;
  p: number;
}

/** OWASP's scrypt figure for 32 MiB of memory (N=2^15, r=8, p=3), equivalent to its N=2^17, p=1 minimum. */
export const DEFAULT_SCRYPT: ScryptParameters = Object.freeze({ N: 2 ** 15, r: 8, p: 3 });

export const MIN_PASSWORD_LENGTH = 8;
/** Long enough for any passphrase; the cap keeps a megabyte "password" from costing a hash of that size. */
export const MAX_PASSWORD_LENGTH = 1024;

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** A clear 400 when a new password breaks the rules; `field` is the body property holding it. */
export function checkPasswordRules(password: unknown, field = 'password'): string {
  if (typeof password !== 'string' || password.length === 0) {
    throw invalid(`${field} is required`, [{ path: `/${field}`, message: 'is required' }]);
  }
  if (password.length < MIN_PASSWORD_LENGTH) {
    const message = `must be at least ${MIN_PASSWORD_LENGTH} characters long`;
    throw invalid(`${field} ${message}`, [{ path: `/${field}`, message }]);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    const message = `must be at most ${MAX_PASSWORD_LENGTH} characters long`;
    throw invalid(`${field} ${message}`, [{ path: `/${field}`, message }]);
  }
  return password;
}

/**
 * Hashes and verifies passwords. scrypt runs on libuv's small thread pool, which file and DNS work share; a burst of
 * logins must not starve it, so at most `concurrency` hashes run at once and the rest wait their turn.
 */
export class PasswordHasher {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly parameters: ScryptParameters = DEFAULT_SCRYPT,
    private readonly concurrency = 2,
  ) {}

  async hash(password: string): Promise<string> {
    const { N, r, p } = this.parameters;
    const salt = randomBytes(SALT_LENGTH);
    const key = await this.derive(password, salt, this.parameters);
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
  }

  /** False for a wrong password and for a hash this code cannot read (never throws on bad stored data). */
  async verify(password: string, stored: string): Promise<boolean> {
    const parsed = parseHash(stored);
    if (!parsed || password.length > MAX_PASSWORD_LENGTH) return false;
    const key = await this.derive(password, parsed.salt, parsed.parameters, parsed.key.length);
    return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  }

  private async derive(password: string, salt: Buffer, { N, r, p }: ScryptParameters, length = KEY_LENGTH) {
    await this.acquire();
    try {
      // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is exactly that for N=2^15, r=8, so lift it.
      const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
      return await new Promise<Buffer>((resolve, reject) =>
        scrypt(password.normalize('NFC'), salt, length, options, (error, key) =>
          error ? reject(error) : resolve(key),
        ),
      );
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

function parseHash(stored: string) {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounds keep a corrupted record from asking for gigabytes of memory.
  if (
    ![N, r, p].every(Number.isSafeInteger) ||
    N < 2 ||
    N > 2 ** 20 ||
    (N & (N - 1)) !== 0 ||
    r < 1 ||
    r > 32 ||
    p < 1 ||
    p > 16
  ) {
    return undefined;
  }
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length === 0 || key.length < 16) return undefined;
  return { parameters: { N, r, p }, salt, key };
}
