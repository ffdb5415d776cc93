import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { conflict, forbidden } from '@svc/plugin-api';
import type { UserDirectory } from './user-directory.js';

/** How long a setup link works (a restart makes a fresh one anyway: the token lives only in this process). */
export const SETUP_LINK_LIFETIME_MS = 24 * 3600_000;

/**
 * The first-run setup (docs/api.md "First run"): on an empty store started without SVC_ADMIN_PASSWORD, svc prints a
 * one-time link carrying a random token, and whoever opens it creates the super administrator. The token is kept only
 * in memory (a restart prints a fresh link), works once, and expires.
 */
export class FirstRunSetup {
  private token: Buffer | undefined;
  private expiresAt = 0;
  /** Completions run one at a time, so concurrent attempts create exactly one administrator. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly users: UserDirectory,
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs = SETUP_LINK_LIFETIME_MS,
  ) {}

  /** Makes this process's token (called at boot when no user exists and no password was given). */
  open(): void {
    this.token = randomBytes(32);
    this.expiresAt = this.now() + this.lifetimeMs;
  }

  /** Setup is pending while no user exists: nobody could sign in. */
  get pending(): boolean {
    return this.users.size === 0;
  }

  /**
   * The link to the console's setup page, or undefined when there is none to give. The token rides in the fragment:
   * browsers never send a fragment to a server, so it stays out of access logs, proxies and `Referer`.
   */
  link(baseUrl: string): string | undefined {
    if (!this.token || !this.pending) return undefined;
    return `${baseUrl}/console/setup#token=${this.token.toString('base64url')}`;
  }

  /**
   * Runs `create` if `token` is this process's setup token and setup is still pending; the token is then used up.
   * A failed `create` leaves the token usable, so a mistake can be corrected.
   */
  complete<T>(token: string, create: () => Promise<T>): Promise<T> {
    const attempt = this.queue.then(async () => {
      if (!this.pending) throw conflict('setup is done: the super administrator exists; sign in instead');
      if (!this.matches(token)) throw forbidden('this setup link is not valid');
      if (this.now() >= this.expiresAt) {
        throw forbidden('this setup link has expired: restart svc, which prints a fresh one');
      }
      const made = await create();
      this.token = undefined;
      return made;
    });
    this.queue = attempt.catch(() => undefined);
    return attempt;
  }

  /** Compared in constant time, over digests so that the lengths match whatever was sent. */
  private matches(token: string): boolean {
    if (!this.token) return false;
    const digest = (value: Buffer) => createHash('sha256').update(value).digest();
    const sent = digest(Buffer.from(token, 'utf8'));
    return timingSafeEqual(sent, digest(Buffer.from(this.token.toString('base64url'), 'utf8')));
  }
}

/**
 * How the setup link is printed: a block framed by lines of `=`, on standard error (main.ts), never as a log line, so
 * it stands out from the log on standard output and never reaches whatever collects the log. The link's own line
 * starts with `svc setup: ` for whoever or whatever looks for it.
 */
export function setupLinkNotice(link: string): string {
  const lines = [
    `svc setup: ${link}`,
    '  Open it to create the super administrator. It works once, until svc restarts, for 24 hours at most;',
    '  whoever opens it first becomes the administrator, so keep it to yourself.',
  ];
  const frame = '='.repeat(Math.max(...lines.map((line) => line.length)));
  return `\n${frame}\n${lines.join('\n')}\n${frame}\n\n`;
}

/**
 * Where the setup link points. On a loopback or wildcard address, plain HTTP on this machine (the password stays on
 * it, and a browser opens it without a certificate warning); on any other address, HTTPS when it is on, so the
 * administrator's password does not cross the network in the clear.
 */
export function setupLinkBase(host: string, httpUrl: string, httpsUrl: string | undefined): string {
  const wildcard = host === '0.0.0.0' || host === '::';
  const loopback = host === 'localhost' || host === '::1' || /^127\./.test(host);
  if (wildcard) return httpUrl.replace(host === '::' ? '[::]' : host, host === '::' ? '[::1]' : '127.0.0.1');
  return loopback || !httpsUrl ? httpUrl : httpsUrl;
}
