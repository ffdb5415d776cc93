import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_PASSWORD, startAuthServer } from './authn-helpers.js';
import type { TestServer } from './harness.js';

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});
const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';

describe('HTTP Basic, off by default', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startAuthServer();
  });
  afterAll(() => t?.close());

  it('answers 401 to Basic credentials, even right ones', async () => {
    const response = await t.request('GET', TOKENS, undefined, basic(ADMIN, ADMIN_PASSWORD));
    expect(response.status).toBe(401);
    expect(response.body.detail).toMatch(/Basic authentication is turned off/);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="svc"');
  });
});

describe('HTTP Basic with SVC_BASIC_AUTH=true', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startAuthServer({ SVC_BASIC_AUTH: 'true' });
  });
  afterAll(() => t?.close());

  it('authenticates with the right password', async () => {
    const response = await t.request('GET', TOKENS, undefined, basic(ADMIN, ADMIN_PASSWORD));
    expect(response.status).toBe(200);
    const principal = await t.server.authn.authenticator.authenticate({
      method: 'POST',
      url: TOKENS,
      ip: '127.0.0.1',
      headers: basic(ADMIN, ADMIN_PASSWORD),
    } as never);
    expect(principal).toEqual({ username: ADMIN, via: 'basic' });
  });

  it('refuses a wrong password with 401 and a Basic challenge', async () => {
    const response = await t.request('GET', TOKENS, undefined, basic(ADMIN, 'wrong password'));
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Basic realm="svc"');
  });

  it('offers both challenges when credentials are needed', async () => {
    // The authorization hook answers anonymous callers itself; this is the challenge authentication offers for it.
    const challenge = t.server.authn.authenticator.challenge('sign in');
    expect(challenge).toMatchObject({
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="svc", Basic realm="svc"' },
    });
    const anonymous = await t.request('GET', TOKENS);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer realm="svc"/);
  });

  it('forgets a remembered credential when the password changes', async () => {
    await t.server.authn.credentials.setPassword(ADMIN, 'a brand new password');
    expect((await t.request('GET', TOKENS, undefined, basic(ADMIN, ADMIN_PASSWORD))).status).toBe(401);
    expect((await t.request('GET', TOKENS, undefined, basic(ADMIN, 'a brand new password'))).status).toBe(200);
  });
});
