import { readCookie, serializeCookie } from './cookies.js';
import { type PendingSignIn, SIGN_IN_TTL_MS } from './oidc-sign-in.js';

/**
 * The sign-in under way, kept in the browser that started it: an httpOnly cookie scoped to `/login/oidc`, SameSite=Lax
 * (the provider's redirect back is a top-level GET, which Lax lets through). It needs no signature: it only ever
 * holds this browser's own state, nonce and PKCE verifier, and the callback must match all three. Keeping it in the
 * browser rather than in server memory lets any replica finish a sign-in another started.
 */
export const FLOW_COOKIE = 'SVC_OIDC_FLOW';
const FLOW_PATH = '/login/oidc';

export function flowCookie(pending: PendingSignIn, secure: boolean): string {
  const value = Buffer.from(JSON.stringify(pending)).toString('base64url');
  return serializeCookie(FLOW_COOKIE, value, {
    httpOnly: true,
    secure,
    path: FLOW_PATH,
    maxAge: SIGN_IN_TTL_MS / 1000,
  });
}

/** Used or refused, a sign-in's cookie goes: its state cannot be played again. */
export function clearedFlowCookie(secure: boolean): string {
  return serializeCookie(FLOW_COOKIE, '', { httpOnly: true, secure, path: FLOW_PATH, maxAge: 0 });
}

/** A page of the console or the personal center, on this origin: where a sign-in may land. */
export function isConsolePath(path: string): boolean {
  return /^\/(console|uc)(\/[^\\]*)?$/.test(path);
}

/**
 * The sign-in under way, or undefined when the cookie is missing or not one svc wrote. Its landing page is checked
 * again here: the cookie is the browser's to change, and the callback redirects to it.
 */
export function readFlow(cookieHeader: string | undefined): PendingSignIn | undefined {
  const value = readCookie(cookieHeader, FLOW_COOKIE);
  if (!value) return undefined;
  try {
    const pending = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<PendingSignIn>;
    const strings = [pending.state, pending.nonce, pending.verifier, pending.returnTo];
    const wellFormed = strings.every((s) => typeof s === 'string' && s !== '') && typeof pending.startedAt === 'number';
    if (wellFormed && isConsolePath(pending.returnTo!)) {
      return pending as PendingSignIn;
    }
  } catch {
    // Not JSON: not a cookie svc wrote.
  }
  return undefined;
}
