/**
 * Issue 13, item 8: a cookie-authenticated WebSocket (and a sign-in) is accepted only from svc's own origin, compared
 * whole: scheme, host and port.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ADMIN, ADMIN_PASSWORD, type Browser, signIn, startAuthServer } from './authn-helpers.js';
import { BACKENDS, type Backend, type TestServer } from './harness.js';

/** Opens a WebSocket watch of users with the session cookie; resolves with the handshake's status (101 when opened). */
function handshake(base: string, cookie: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/api/v1alpha1/users`, {
      headers: { cookie, ...(origin === undefined ? {} : { origin }) },
    });
    socket.on('open', () => {
      socket.close();
      resolve(101);
    });
    socket.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
      socket.terminate();
    });
    socket.on('error', reject);
  });
}

describe.each(BACKENDS)('the origin of cookie-authenticated requests (%s)', (backend: Backend) => {
  let t: TestServer;
  let base: string;
  let admin: Browser;
  beforeAll(async () => {
    t = await startAuthServer({}, [], backend);
    base = await t.server.listen();
    admin = await signIn(t, ADMIN, ADMIN_PASSWORD);
  });
  afterAll(() => t?.close());

  it('accepts a WebSocket from its own origin, or with no Origin, and refuses another scheme, port or host', async () => {
    const { host, port } = new URL(base);
    expect(await handshake(base, admin.cookie, `http://${host}`)).toBe(101);
    expect(await handshake(base, admin.cookie)).toBe(101);
    expect(await handshake(base, admin.cookie, `https://${host}`)).toBe(403);
    expect(await handshake(base, admin.cookie, `http://127.0.0.1:${Number(port) === 9999 ? 9998 : 9999}`)).toBe(403);
    expect(await handshake(base, admin.cookie, `http://127.0.0.1.evil.com:${port}`)).toBe(403);
    expect(await handshake(base, admin.cookie, 'null')).toBe(403);
  });

  it('refuses a sign-in posted from the same host and port over another scheme', async () => {
    const signInFrom = (origin: string) =>
      t.anonymous('POST', '/login', { username: ADMIN, password: ADMIN_PASSWORD }, { host: '127.0.0.1:8090', origin });
    const refused = await signInFrom('https://127.0.0.1:8090');
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await signInFrom('http://127.0.0.1:8090')).status).toBe(200);
  });
});
