import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_PASSWORD, type Browser, bearer, createUser, signIn, startAuthServer } from './authn-helpers.js';
import { eventually } from './eventually.js';
import { BACKENDS, type TestServer } from './harness.js';

const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const ANNOTATION = 'security.svc.run/access-token';

describe.each(BACKENDS)('personal access tokens over HTTP (%s)', (backend) => {
  let t: TestServer;
  let admin: Browser;
  beforeAll(async () => {
    t = await startAuthServer({}, [], backend);
    admin = await signIn(t, ADMIN, ADMIN_PASSWORD);
  });
  afterAll(() => t?.close());

  const authenticate = (token: string, method = 'GET', url = '/api/v1alpha1/users') =>
    t.server.authn.authenticator.authenticate({ method, url, ip: '127.0.0.1', headers: bearer(token) } as never);

  it('creates a token shown once, then lists and gets it without the secret', async () => {
    const created = await admin.request('POST', TOKENS, { spec: { name: 'deploy', roles: ['super-role'] } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${TOKENS}/${created.body.metadata.name}`);
    const token = created.body.metadata.annotations[ANNOTATION];
    expect(token).toMatch(/^pat_/);
    expect(created.body.spec).toMatchObject({ name: 'deploy', username: ADMIN, roles: ['super-role'] });

    await expect(authenticate(token)).resolves.toEqual({
      username: ADMIN,
      via: 'token',
      restrictedToRoles: ['super-role'],
      tokenName: created.body.metadata.name,
    });

    const list = await t.request('GET', TOKENS, undefined, bearer(token));
    expect(list.status).toBe(200);
    expect(list.body.kind).toBe('PersonalAccessTokenList');
    expect(list.body.items.map((i: any) => i.metadata.name)).toContain(created.body.metadata.name);
    expect(list.text).not.toContain(token);
    expect(list.text).not.toContain(ANNOTATION);
    const one = await admin.request('GET', `${TOKENS}/${created.body.metadata.name}`);
    expect(one.status).toBe(200);
    expect(one.text).not.toContain(token);
    // lastUsedAt is recorded (off the request's path: waited for, since a commit's time is not a test's to assume).
    const used = async () => (await admin.request('GET', `${TOKENS}/${created.body.metadata.name}`)).body;
    await eventually(async () => (await used()).status?.lastUsedAt !== undefined, 'lastUsedAt');
    expect((await used()).status.lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("names the token's roles in its 403, since the owner's other roles do not count", async () => {
    const bare = await admin.request('POST', TOKENS, { spec: { name: 'bare', roles: [] } });
    expect(bare.status).toBe(201);
    const denied = await t.request(
      'GET',
      '/api/v1alpha1/users',
      undefined,
      bearer(bare.body.metadata.annotations[ANNOTATION]),
    );
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain(`(the token "${bare.body.metadata.name}" acts with no roles only)`);
  });

  it("lists only the caller's own tokens", async () => {
    expect((await createUser(admin, 'dana', 'dana password')).status).toBe(201);
    const dana = await signIn(t, 'dana', 'dana password');
    await dana.request('POST', TOKENS, { spec: { name: 'dana token', roles: [] } });
    const list = await dana.request('GET', TOKENS);
    expect(list.body.items.map((i: any) => i.spec.username)).toEqual(['dana']);
    const adminTokens = await admin.request('GET', TOKENS);
    expect(adminTokens.body.items.every((i: any) => i.spec.username === ADMIN)).toBe(true);
  });

  it('refuses roles the creator does not hold', async () => {
    const response = await admin.request('POST', TOKENS, { spec: { name: 'too much', roles: ['editor'] } });
    expect(response.status).toBe(403);
    expect(response.body.detail).toMatch(/"editor"/);
  });

  it('refuses anonymous callers with 401', async () => {
    const response = await t.request('POST', TOKENS, { spec: { name: 'x', roles: [] } });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="svc"');
  });

  it('revokes a token: it then gets 401', async () => {
    const created = await admin.request('POST', TOKENS, { spec: { name: 'revoke me', roles: [] } });
    const token = created.body.metadata.annotations[ANNOTATION];
    const revoked = await admin.request('PUT', `${TOKENS}/${created.body.metadata.name}/revocation`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.spec.revoked).toBe(true);
    await expect(authenticate(token)).rejects.toMatchObject({
      status: 401,
      headers: { 'www-authenticate': expect.stringMatching(/^Bearer/) },
    });
    const response = await t.request('GET', TOKENS, undefined, bearer(token));
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toMatch(/problem\+json/);
  });

  it('refuses an expired token with 401', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await admin.request('POST', TOKENS, { spec: { name: 'short lived', roles: [], expiresAt } });
    expect(created.status).toBe(201);
    const token = created.body.metadata.annotations[ANNOTATION];
    await expect(authenticate(token)).resolves.toMatchObject({ username: ADMIN });
    await new Promise((resolve) => setTimeout(resolve, 1600));
    await expect(authenticate(token)).rejects.toMatchObject({ status: 401 });
  });

  it('deletes a token: it then gets 401 and is gone from the list', async () => {
    const created = await admin.request('POST', TOKENS, { spec: { name: 'delete me', roles: [] } });
    const name = created.body.metadata.name;
    const token = created.body.metadata.annotations[ANNOTATION];
    expect((await admin.request('DELETE', `${TOKENS}/${name}`)).status).toBe(200);
    await expect(authenticate(token)).rejects.toMatchObject({ status: 401 });
    expect((await admin.request('GET', `${TOKENS}/${name}`)).status).toBe(404);
  });

  it('refuses a token that was never issued, and other Authorization schemes', async () => {
    await expect(authenticate('pat_notarealtoken')).rejects.toMatchObject({ status: 401 });
    await expect(authenticate('not-even-a-pat')).rejects.toMatchObject({ status: 401 });
    const digest = await t.server.authn.authenticator
      .authenticate({ method: 'GET', url: '/', ip: '127.0.0.1', headers: { authorization: 'Digest abc' } } as never)
      .catch((e: unknown) => e);
    expect(digest).toMatchObject({ status: 401 });
  });

  it('does not need the CSRF header: a bearer token is not sent by browsers on their own', async () => {
    const created = await admin.request('POST', TOKENS, { spec: { name: 'writer', roles: ['super-role'] } });
    const token = created.body.metadata.annotations[ANNOTATION];
    const response = await t.request(
      'POST',
      TOKENS,
      { spec: { name: 'from token', roles: ['super-role'] } },
      bearer(token),
    );
    expect(response.status).toBe(201);
  });
});
