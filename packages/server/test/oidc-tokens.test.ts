import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Audit, auditRef } from '../src/audit/module.js';
import { httpsFetchFor } from '../src/authn/oidc-discovery.js';
import { OidcTokenRefused, OidcTokens } from '../src/authn/oidc-tokens.js';
import { BACKENDS, roleBinding, startTestServer, type TestServer } from './harness.js';
import { startIssuer, type TestIssuer } from './oidc-issuer.js';
import { watchHttp } from './watch-client.js';

const CLIENT_ID = 'svc-test';
const ROLES = '/api/v1alpha1/roles';
const BINDINGS = '/api/v1alpha1/rolebindings';
const ACCESS_REVIEWS = '/apis/api.console.svc.run/v1alpha1/accessreviews';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * OIDC ID tokens as bearer tokens (docs/access-control.md "Single sign-on"), against a real issuer over HTTPS with its
 * own CA: the user and groups a token names, a RoleBinding to a group, key rotation, and every invalid token a 401.
 */
describe.each(BACKENDS)('OIDC bearer tokens (%s)', (backend) => {
  let issuer: TestIssuer;
  let t: TestServer;

  beforeAll(async () => {
    issuer = await startIssuer(CLIENT_ID);
    t = await startTestServer({
      backend,
      pluginsDirs: [],
      env: { SVC_OIDC_ISSUER_URL: issuer.url, SVC_OIDC_CLIENT_ID: CLIENT_ID, SVC_OIDC_CA_FILE: issuer.caFile },
      // A token naming a key not seen yet fetches the keys at once (jose's 30 s cooldown would outlast the test).
      serverOptions: { oidc: { jwksCooldownMs: 0 } },
    });
    const role = await t.request('POST', ROLES, {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'role-reader' },
      rules: [{ apiGroups: [''], resources: ['roles'], verbs: ['get', 'list', 'watch'] }],
    });
    expect(role.status).toBe(201);
    // Access reviews of oneself, for the groups devs and readers.
    const reviewer = await t.request('POST', ROLES, {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'reviewer' },
      rules: [{ apiGroups: ['api.console.svc.run'], resources: ['accessreviews'], verbs: ['create'] }],
    });
    expect(reviewer.status).toBe(201);
    const binding = await t.request(
      'POST',
      BINDINGS,
      roleBinding('reviewers', 'reviewer', { groups: ['oidc:devs', 'oidc:readers'] }),
    );
    expect(binding.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  it('authenticates a valid token as oidc:<sub> with its groups prefixed', async () => {
    const token = await issuer.sign({ sub: 'alice', groups: ['devs', 'ops'] });
    const review = await t.request('POST', ACCESS_REVIEWS, { method: 'GET', path: ROLES }, bearer(token));
    expect(review.status).toBe(200);
    expect(review.body).toMatchObject({ user: 'oidc:alice', allowed: false });
    // A write (refused) is audited with the user and the token's groups.
    const refused = await t.request('POST', ROLES, { metadata: { name: 'nope' } }, bearer(token));
    expect(refused.status).toBe(403);
    const audit: Audit = t.server.modules.get(auditRef);
    await audit.flush();
    const events = await t.request('GET', '/apis/audit.svc.run/v1alpha1/events?user=oidc:alice&verb=create');
    expect(events.body.items[0].user).toEqual({
      username: 'oidc:alice',
      groups: ['oidc:devs', 'oidc:ops', 'system:authenticated'],
    });
  });

  it('grants what a RoleBinding to one of its groups grants, and takes it back', async () => {
    const token = await issuer.sign({ sub: 'bob', groups: 'readers' });
    expect((await t.request('GET', ROLES, undefined, bearer(token))).status).toBe(403);
    const binding = await t.request(
      'POST',
      BINDINGS,
      roleBinding('readers-read-roles', 'role-reader', { groups: ['oidc:readers'] }),
    );
    expect(binding.status).toBe(201);
    const listed = await t.request('GET', ROLES, undefined, bearer(token));
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: { metadata: { name: string } }) => r.metadata.name)).toContain('role-reader');
    const review = await t.request('POST', ACCESS_REVIEWS, { method: 'GET', path: ROLES }, bearer(token));
    expect(review.body).toMatchObject({ user: 'oidc:bob', allowed: true, role: 'role-reader' });
    // Someone not in the group gets nothing from it.
    const other = await issuer.sign({ sub: 'carol', groups: ['writers'] });
    expect((await t.request('GET', ROLES, undefined, bearer(other))).status).toBe(403);
    expect((await t.request('DELETE', `${BINDINGS}/readers-read-roles`)).status).toBe(200);
    expect((await t.request('GET', ROLES, undefined, bearer(token))).status).toBe(403);
  });

  it("ends a watch opened with an ID token at the token's exp", async () => {
    const base = await t.server.listen();
    const binding = await t.request(
      'POST',
      BINDINGS,
      roleBinding('watchers-read-roles', 'role-reader', { groups: ['oidc:watchers'] }),
    );
    expect(binding.status).toBe(201);
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.sign({ sub: 'wes', groups: ['watchers'], exp: now + 2 });
    const revision = (await t.request('GET', ROLES)).body.metadata.resourceVersion;
    const watch = watchHttp(base, `${ROLES}?watch=true&resourceVersion=${revision}`, { headers: bearer(token) });
    expect((await watch.response).statusCode).toBe(200);
    await watch.until(() => watch.isEnded(), 'the watch to end', 10_000);
    expect(watch.events.at(-1)).toMatchObject({
      type: 'ERROR',
      object: {
        code: 401,
        reason: 'Unauthorized',
        message: 'the ID token has expired; open the stream again with a fresh one',
      },
    });
  });

  it('refuses expired, wrongly signed, wrong-audience and wrong-issuer tokens with 401 problem+json', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string]> = [
      [await issuer.sign({ iat: now - 7200, exp: now - 3600 }), 'the ID token has expired'],
      [await issuer.sign({}, { key: 'stranger' }), "the ID token is signed with a key the provider doesn't publish"],
      [await issuer.sign({}, { clientId: 'another-client' }), 'the ID token is not for this server (audience)'],
      [await issuer.sign({ iss: 'https://evil.example' }), 'the ID token is from another issuer'],
      [await issuer.sign({ nbf: now + 3600 }), 'the ID token is not valid yet'],
      [await issuer.sign({ sub: 42 as unknown as string }), 'the sub claim is missing'],
      [await issuer.sign({ groups: [1, 2] }), 'the groups claim must be a string or a list of strings'],
      ['eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.x', "the ID token's signing algorithm is not accepted"],
      ['eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.eA', 'the ID token signature is invalid'],
    ];
    for (const [token, detail] of cases) {
      const answer = await t.request('GET', ROLES, undefined, bearer(token));
      expect(answer.status, detail).toBe(401);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.body.detail).toBe(detail);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="svc", error="invalid_token"');
    }
  });

  it('picks up a rotated key, and refuses the key the provider no longer publishes', async () => {
    const before = await issuer.sign({ groups: ['devs'] });
    expect((await t.request('POST', ACCESS_REVIEWS, { method: 'GET', path: ROLES }, bearer(before))).status).toBe(200);
    const oldKeyToken = await issuer.sign({ sub: 'dave', groups: ['devs'] });
    const fetchesBefore = issuer.jwksFetches();
    await issuer.rotate();
    const newKeyToken = await issuer.sign({ sub: 'dave', groups: ['devs'] });
    const review = await t.request('POST', ACCESS_REVIEWS, { method: 'GET', path: ROLES }, bearer(newKeyToken));
    expect(review.status).toBe(200);
    expect(review.body.user).toBe('oidc:dave');
    expect(issuer.jwksFetches()).toBe(fetchesBefore + 1);
    const old = await t.request('GET', ROLES, undefined, bearer(oldKeyToken));
    expect(old.status).toBe(401);
    expect(old.body.detail).toBe("the ID token is signed with a key the provider doesn't publish");
  });
});

describe('OIDC token claims', () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startIssuer(CLIENT_ID);
  });
  afterAll(() => issuer?.close());
  const tokensWith = async (overrides: Partial<ConstructorParameters<typeof OidcTokens>[0]> = {}) =>
    new OidcTokens(
      {
        issuerUrl: issuer.url,
        clientId: CLIENT_ID,
        usernameClaim: 'sub',
        groupsClaim: 'groups',
        usernamePrefix: 'oidc:',
        groupsPrefix: 'oidc:',
        ...overrides,
      },
      await httpsFetchFor(issuer.caFile),
    );

  it('names the user by the configured claim and prefixes, and refuses an unverified email', async () => {
    const tokens = await tokensWith({
      usernameClaim: 'email',
      groupsClaim: 'roles',
      usernamePrefix: 'sso-',
      groupsPrefix: '',
    });
    const principal = await tokens.authenticate(
      await issuer.sign({ email: 'erin@example.com', email_verified: true, roles: ['a', 'b', 'a'] }),
    );
    expect(principal).toMatchObject({ username: 'sso-erin@example.com', via: 'oidc', groups: ['a', 'b'] });
    await expect(
      tokens.authenticate(await issuer.sign({ email: 'erin@example.com', email_verified: false })),
    ).rejects.toThrow(new OidcTokenRefused('the email claim is not verified'));
  });

  it('does not trust a provider whose certificate its CA did not sign', async () => {
    const tokens = new OidcTokens(
      {
        issuerUrl: issuer.url,
        clientId: CLIENT_ID,
        usernameClaim: 'sub',
        groupsClaim: 'groups',
        usernamePrefix: 'oidc:',
        groupsPrefix: 'oidc:',
      },
      await httpsFetchFor(undefined),
    );
    await expect(tokens.authenticate(await issuer.sign())).rejects.toThrow(/identity provider could not be reached/);
  });
});
