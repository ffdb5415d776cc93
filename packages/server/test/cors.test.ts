import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSONS, person, startTestServer, superAdminToken, type TestServer } from './harness.js';

/** CORS (SVC_CORS_ORIGINS): off by default; for the listed origins, preflights answered and answers readable. */
describe('CORS', () => {
  const APP = 'https://app.example';
  let on: TestServer;
  let off: TestServer;
  let token: string;

  beforeAll(async () => {
    on = await startTestServer({ env: { SVC_CORS_ORIGINS: `${APP},http://localhost:5173` } });
    off = await startTestServer();
    token = await superAdminToken(on, 'cors');
    expect((await on.request('POST', PERSONS, person('cors-person'))).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await on.close();
    await off.close();
  });

  const preflight = (t: TestServer, origin: string) =>
    t.anonymous('OPTIONS', PERSONS, undefined, {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    });

  it("answers a listed origin's preflight before asking for credentials", async () => {
    const answer = await preflight(on, APP);
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(String(answer.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(answer.headers['access-control-allow-headers'])).toBe(
      'authorization, content-type, accept, x-request-id',
    );
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets a listed origin read an answer made with a token, and exposes its request id', async () => {
    const answer = await on.anonymous('GET', `${PERSONS}/cors-person`, undefined, {
      origin: APP,
      authorization: `Bearer ${token}`,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(String(answer.headers['access-control-expose-headers'])).toContain('x-request-id');
    expect(String(answer.headers.vary)).toContain('Origin');
  });

  it('gives an origin not listed no CORS header, and its preflight no answer of consent', async () => {
    const answer = await on.anonymous('GET', `${PERSONS}/cors-person`, undefined, {
      origin: 'https://evil.example',
      authorization: `Bearer ${token}`,
    });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect((await preflight(on, 'https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends no CORS header at all when no origin is set', async () => {
    const answer = await off.request('GET', PERSONS, undefined, { origin: APP });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect((await preflight(off, APP)).headers['access-control-allow-origin']).toBeUndefined();
  });
});
