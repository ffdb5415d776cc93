import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_PASSWORD, type Browser, bearer, createUser, signIn, startAuthServer } from './authn-helpers.js';
import type { TestServer } from './harness.js';

/**
 * Authentication as the generated API sees it, through the authorization hook: every request is authenticated in
 * `onRequest`, before any handler (generated, custom or core) runs.
 */
const USERS = '/api/v1alpha1/users';
const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const ALL_TOKENS = '/apis/security.svc.run/v1alpha1/personalaccesstokens';
const ANNOTATION = 'security.svc.run/access-token';

describe('authentication in front of the generated API', () => {
  let t: TestServer;
  let admin: Browser;
  let adminToken: string;
  beforeAll(async () => {
    t = await startAuthServer();
    admin = await signIn(t, ADMIN, ADMIN_PASSWORD);
    const created = await admin.request('POST', TOKENS, { spec: { name: 'admin', roles: ['super-role'] } });
    adminToken = created.body.metadata.annotations[ANNOTATION];
  });
  afterAll(() => t?.close());

  it('serves the super administrator by session and by token', async () => {
    expect((await admin.request('GET', USERS)).status).toBe(200);
    const list = await t.request('GET', USERS, undefined, bearer(adminToken));
    expect(list.status).toBe(200);
    expect(list.body.items.map((u: any) => u.metadata.name)).toContain(ADMIN);
  });

  it('answers anonymous callers 401 with a challenge', async () => {
    const response = await t.request('GET', USERS);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="svc"/);
  });

  it('refuses bad credentials before authorization: forged cookie, unknown token, Basic while off', async () => {
    const forged = await t.request('GET', USERS, undefined, { cookie: 'SVC_SESSION=forged' });
    expect(forged.status).toBe(401);
    expect((await t.request('GET', USERS, undefined, bearer('pat_forged'))).status).toBe(401);
    const basic = { authorization: `Basic ${Buffer.from(`${ADMIN}:${ADMIN_PASSWORD}`).toString('base64')}` };
    expect((await t.request('GET', USERS, undefined, basic)).status).toBe(401);
  });

  it('needs the CSRF header on cookie-authenticated writes of the generated API', async () => {
    const patch = { spec: { displayName: 'The administrator' } };
    const type = { 'content-type': 'application/merge-patch+json' };
    const without = await t.request('PATCH', `${USERS}/${ADMIN}`, patch, { cookie: admin.cookie, ...type });
    expect(without.status).toBe(403);
    expect(without.body.detail).toMatch(/X-XSRF-TOKEN/);
    const wrong = await t.request('PATCH', `${USERS}/${ADMIN}`, patch, {
      cookie: admin.cookie,
      'x-xsrf-token': 'nope',
      ...type,
    });
    expect(wrong.status).toBe(403);
    expect((await admin.request('PATCH', `${USERS}/${ADMIN}`, patch, type)).status).toBe(200);
  });

  it("acts with a token's roles only: a token without roles is a plain authenticated user (403)", async () => {
    const created = await admin.request('POST', TOKENS, { spec: { name: 'no roles', roles: [] } });
    const token = created.body.metadata.annotations[ANNOTATION];
    expect((await t.request('GET', USERS, undefined, bearer(token))).status).toBe(403);
  });

  it('refuses a revoked token on the generated API', async () => {
    const created = await admin.request('POST', TOKENS, { spec: { name: 'to revoke', roles: ['super-role'] } });
    const token = created.body.metadata.annotations[ANNOTATION];
    expect((await t.request('GET', USERS, undefined, bearer(token))).status).toBe(200);
    await admin.request('PUT', `${TOKENS}/${created.body.metadata.name}/revocation`);
    expect((await t.request('GET', USERS, undefined, bearer(token))).status).toBe(401);
  });

  it('never returns a password hash or a token secret through the generated API', async () => {
    await createUser(admin, 'mona', 'mona password');
    const users = await t.request('GET', USERS, undefined, bearer(adminToken));
    expect(users.text).not.toMatch(/scrypt|password/i);
    const tokens = await t.request('GET', ALL_TOKENS, undefined, bearer(adminToken));
    expect(tokens.status).toBe(200);
    expect(tokens.text).not.toContain(adminToken);
    expect(tokens.text).not.toContain(ANNOTATION);
  });

  it('lets a user with no roles sign in, change their password, and manage their own tokens', async () => {
    await createUser(admin, 'nora', 'nora password');
    const nora = await signIn(t, 'nora', 'nora password');
    const created = await nora.request('POST', TOKENS, { spec: { name: 'mine', roles: [] } });
    expect(created.status).toBe(201);
    expect((await nora.request('GET', TOKENS)).status).toBe(200);
    const changed = await nora.request('PUT', '/apis/api.console.svc.run/v1alpha1/users/-/password', {
      oldPassword: 'nora password',
      password: 'nora new password',
    });
    expect(changed.status).toBe(204);
    // Their own User object, for the personal center's profile (users/-)…
    const own = await nora.request('GET', '/apis/api.console.svc.run/v1alpha1/users/-');
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ kind: 'User', metadata: { name: 'nora' } });
    expect((await t.anonymous('GET', '/apis/api.console.svc.run/v1alpha1/users/-')).status).toBe(401);
    expect((await nora.request('GET', `/api/v1alpha1/users/${ADMIN}`)).status).toBe(403);
    // …but not another user's password, nor users in general.
    const reset = await nora.request('PUT', `/apis/api.console.svc.run/v1alpha1/users/${ADMIN}/password`, {
      password: 'taken over!',
    });
    expect(reset.status).toBe(403);
    expect(
      (await nora.request('POST', '/apis/api.console.svc.run/v1alpha1/users', { name: 'x', password: 'x password' }))
        .status,
    ).toBe(403);
    expect((await nora.request('POST', '/logout')).status).toBe(204);
  });
});
