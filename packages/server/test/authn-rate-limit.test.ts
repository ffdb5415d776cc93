import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from './harness.js';
import { ADMIN, ADMIN_PASSWORD, startAuthServer } from './authn-helpers.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const attempt = (server: TestServer, username: string, password: string, remoteAddress = '10.0.0.1') =>
  server.server.app.inject({ method: 'POST', url: '/login', payload: { username, password }, remoteAddress });

describe('login attempts are limited', () => {
  it('answers 429 with Retry-After after 5 failures from one client, even for the right password', async () => {
    t = await startAuthServer();
    for (let i = 0; i < 5; i++) expect((await attempt(t, ADMIN, `wrong ${i}`)).statusCode).toBe(401);
    const limited = await attempt(t, ADMIN, ADMIN_PASSWORD);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(250);
    expect(limited.headers['content-type']).toMatch(/problem\+json/);
    // Another user from the same client is limited too (per client) …
    expect((await attempt(t, 'someone', 'whatever')).statusCode).toBe(429);
    // … and this user from another client too (per user).
    expect((await attempt(t, ADMIN, ADMIN_PASSWORD, '10.0.0.2')).statusCode).toBe(429);
  });

  it('a successful sign-in resets the count', async () => {
    t = await startAuthServer();
    for (let i = 0; i < 4; i++) await attempt(t, ADMIN, `wrong ${i}`);
    expect((await attempt(t, ADMIN, ADMIN_PASSWORD)).statusCode).toBe(200);
    for (let i = 0; i < 4; i++) expect((await attempt(t, ADMIN, `wrong ${i}`)).statusCode).toBe(401);
    expect((await attempt(t, ADMIN, ADMIN_PASSWORD)).statusCode).toBe(200);
  });
});
