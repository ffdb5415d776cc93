/**
 * The two cookies of a login session. Parsed and written here rather than with a cookie plugin: authentication reads
 * one cookie on every request, and a full parse of every cookie would cost more than the lookup it feeds.
 */
export const SESSION_COOKIE = 'SVC_SESSION';
/** Readable by the console's scripts, which echo it in the `X-XSRF-TOKEN` header (the Angular/Spring convention). */
export const XSRF_COOKIE = 'XSRF-TOKEN';
export const XSRF_HEADER = 'x-xsrf-token';

/** The value of cookie `name` in a `Cookie` header, or undefined. The first occurrence wins, as browsers send the
 * most specific path first. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  let at = 0;
  while (at < header.length) {
    const end = header.indexOf(';', at);
    const pair = header.slice(at, end === -1 ? header.length : end);
    const eq = pair.indexOf('=');
    if (eq !== -1 && pair.slice(0, eq).trim() === name) {
      let value = pair.slice(eq + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      return value;
    }
    if (end === -1) break;
    at = end + 1;
  }
  return undefined;
}

export interface CookieOptions {
  httpOnly: boolean;
  secure: boolean;
  /** Seconds; 0 deletes the cookie. Absent: a browser-session cookie. */
  maxAge?: number;
  /** Absent: `/`. */
  path?: string;
}

/** A `Set-Cookie` value: SameSite=Lax always, Path=/ unless told (docs/api.md "Security"). Values are base64url. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  let cookie = `${name}=${value}; Path=${options.path ?? '/'}; SameSite=Lax`;
  if (options.maxAge !== undefined) {
    cookie += `; Max-Age=${options.maxAge}`;
    if (options.maxAge === 0) cookie += '; Expires=Thu, 01 Jan 1970 00:00:00 GMT';
  }
  if (options.httpOnly) cookie += '; HttpOnly';
  if (options.secure) cookie += '; Secure';
  return cookie;
}

/** The cookies that start a session. */
export function sessionCookies(sessionId: string, xsrfToken: string, secure: boolean): string[] {
  return [
    serializeCookie(SESSION_COOKIE, sessionId, { httpOnly: true, secure }),
    serializeCookie(XSRF_COOKIE, xsrfToken, { httpOnly: false, secure }),
  ];
}

/** The cookies that end one. */
export function clearedSessionCookies(secure: boolean): string[] {
  return [
    serializeCookie(SESSION_COOKIE, '', { httpOnly: true, secure, maxAge: 0 }),
    serializeCookie(XSRF_COOKIE, '', { httpOnly: false, secure, maxAge: 0 }),
  ];
}
