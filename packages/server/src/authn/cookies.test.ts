import { describe, expect, it } from 'vitest';
import { clearedSessionCookies, readCookie, sessionCookies } from './cookies.js';

describe('cookies', () => {
  it('reads one cookie from a Cookie header', () => {
    const header = 'theme=dark; SVC_SESSION=abc-_123; XSRF-TOKEN="quoted"';
    expect(readCookie(header, 'SVC_SESSION')).toBe('abc-_123');
    expect(readCookie(header, 'XSRF-TOKEN')).toBe('quoted');
    expect(readCookie(header, 'missing')).toBeUndefined();
    expect(readCookie(undefined, 'SVC_SESSION')).toBeUndefined();
    expect(readCookie('NOT_SVC_SESSION=x', 'SVC_SESSION')).toBeUndefined();
  });

  it('writes the session cookie HttpOnly and the CSRF cookie readable, both SameSite=Lax on Path=/', () => {
    const [session, xsrf] = sessionCookies('id', 'token', false);
    expect(session).toBe('SVC_SESSION=id; Path=/; SameSite=Lax; HttpOnly');
    expect(xsrf).toBe('XSRF-TOKEN=token; Path=/; SameSite=Lax');
  });

  it('adds Secure over HTTPS', () => {
    for (const cookie of sessionCookies('id', 'token', true)) expect(cookie).toMatch(/; Secure$/);
  });

  it('clears both cookies', () => {
    for (const cookie of clearedSessionCookies(false))
      expect(cookie).toMatch(/=; Path=\/; SameSite=Lax; Max-Age=0; Expires=Thu, 01 Jan 1970/);
  });
});
