import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_PASSWORD, setCookies, signIn, startAuthServer } from './authn-helpers.js';
import { BACKENDS, type TestServer } from './harness.js';

describe.each(BACKENDS)('sign-in with sessions (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startAuthServer({}, [], backend);
  });
  afterAll(() => t?.close());

  it('signs in with JSON, setting an HttpOnly session cookie and a readable XSRF-TOKEN cookie', async () => {
    const response = await t.request('POST', '/login', { username: ADMIN, password: ADMIN_PASSWORD });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ username: ADMIN });
    const lines = ([] as string[]).concat(response.headers['set-cookie'] as string | string[]);
    const session = lines.find((l) => l.startsWith('SVC_SESSION='))!;
    const xsrf = lines.find((l) => l.startsWith('XSRF-TOKEN='))!;
    expect(session).toMatch(/; Path=\/; SameSite=Lax.*; HttpOnly/);
    expect(session).not.toMatch(/Secure/);
    expect(xsrf).toMatch(/; Path=\/; SameSite=Lax/);
    expect(xsrf).not.toMatch(/HttpOnly/);
  });

  it('signs in with an HTML form', async () => {
    const form = `username=${ADMIN}&password=${encodeURIComponent(ADMIN_PASSWORD)}`;
    const response = await t.request('POST', '/login', form, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(200);
    expect(setCookies(response).SVC_SESSION).toBeTruthy();
  });

  it('refuses a wrong password and an unknown user with the same 401 body', async () => {
    const wrong = await t.request('POST', '/login', { username: ADMIN, password: 'not the password' });
    const unknown = await t.request('POST', '/login', { username: 'nobody', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(wrong.headers['www-authenticate']).toBeDefined();
    // Only the request id tells them apart.
    expect({ ...wrong.body, requestId: 'x' }).toEqual({ ...unknown.body, requestId: 'x' });
    expect(wrong.body.requestId).not.toBe(unknown.body.requestId);
    expect(wrong.body.detail).toBe('invalid username or password');
    expect(setCookies(wrong)).toEqual({});
  });

  it('answers 400 when the username or password is missing', async () => {
    const response = await t.request('POST', '/login', { username: ADMIN });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: '/password', message: 'is required' }]);
  });

  it('refuses a sign-in posted from another origin', async () => {
    const response = await t.request(
      'POST',
      '/login',
      { username: ADMIN, password: ADMIN_PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(response.status).toBe(403);
  });

  it('authenticates requests with the session cookie and ends the session at logout', async () => {
    const browser = await signIn(t, ADMIN, ADMIN_PASSWORD);
    const principal = await t.server.authn.authenticator.authenticate(
      fakeRequest('GET', '/api/v1alpha1/users', browser.cookie),
    );
    expect(principal).toMatchObject({ username: ADMIN, via: 'session' });
    expect(principal.sessionId).not.toBe(browser.sessionCookie);

    const logout = await browser.request('POST', '/logout');
    expect(logout.status).toBe(204);
    expect(setCookies(logout)).toEqual({ SVC_SESSION: '', 'XSRF-TOKEN': '' });
    await expect(
      t.server.authn.authenticator.authenticate(fakeRequest('GET', '/api/v1alpha1/users', browser.cookie)),
    ).rejects.toMatchObject({
      status: 401,
    });
    // Logging out again with the dead cookie is harmless.
    expect((await browser.request('POST', '/logout')).status).toBe(204);
  });

  it('a new sign-in ends the session the browser had', async () => {
    const first = await signIn(t, ADMIN, ADMIN_PASSWORD);
    const again = await t.request(
      'POST',
      '/login',
      { username: ADMIN, password: ADMIN_PASSWORD },
      { cookie: first.cookie },
    );
    expect(again.status).toBe(200);
    await expect(
      t.server.authn.authenticator.authenticate(fakeRequest('GET', '/', first.cookie)),
    ).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a forged session cookie with 401', async () => {
    const cookie = 'SVC_SESSION=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const error = await t.server.authn.authenticator
      .authenticate(fakeRequest('GET', '/api/v1alpha1/users', cookie))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401 });
    expect((error as { headers: Record<string, string> }).headers['www-authenticate']).toBe('Bearer realm="svc"');
  });

  describe('CSRF', () => {
    it('refuses a cookie-authenticated write without the X-XSRF-TOKEN header, or with a wrong one', async () => {
      const browser = await signIn(t, ADMIN, ADMIN_PASSWORD);
      const url = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
      const body = { spec: { name: 'ci', roles: [] } };
      const missing = await t.request('POST', url, body, { cookie: browser.cookie });
      expect(missing.status).toBe(403);
      expect(missing.body.detail).toMatch(/X-XSRF-TOKEN/);
      const wrong = await t.request('POST', url, body, { cookie: browser.cookie, 'x-xsrf-token': 'guess' });
      expect(wrong.status).toBe(403);
      const right = await browser.request('POST', url, body);
      expect(right.status).toBe(201);
    });

    it('lets safe methods through without the header', async () => {
      const browser = await signIn(t, ADMIN, ADMIN_PASSWORD);
      const response = await t.request(
        'GET',
        '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens',
        undefined,
        {
          cookie: browser.cookie,
        },
      );
      expect(response.status).toBe(200);
    });
  });
});

/** Just enough of a Fastify request for `authenticate()`. */
export function fakeRequest(method: string, url: string, cookie?: string, headers: Record<string, string> = {}) {
  return { method, url, ip: '127.0.0.1', headers: { ...(cookie ? { cookie } : {}), ...headers } } as never;
}
