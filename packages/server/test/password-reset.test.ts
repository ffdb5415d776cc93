import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';

const OWN_TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const ALL_TOKENS = '/apis/security.svc.run/v1alpha1/personalaccesstokens';
const OWN_PERMISSIONS = `${CONSOLE}/users/-/permissions`;

/**
 * Issue 13, item 8: an administrator's password reset ends every session of the user and revokes their personal
 * access tokens; a user's own password change ends their other sessions and keeps their tokens.
 */
describe.each(BACKENDS)('password changes and what they end (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    admin = await login(t, ADMIN.username, ADMIN.password);
  }, 60_000);
  afterAll(() => t.close());

  const newToken = async (session: Session, name: string) => {
    const created = await as(t, session)('POST', OWN_TOKENS, { spec: { name, roles: [] } });
    expect(created.status).toBe(201);
    return {
      name: created.body.metadata.name as string,
      secret: created.body.metadata.annotations['security.svc.run/access-token'] as string,
    };
  };
  const withToken = (secret: string) =>
    t.anonymous('GET', OWN_PERMISSIONS, undefined, { authorization: `Bearer ${secret}` });

  it("revokes the user's tokens and ends all their sessions when an administrator resets the password", async () => {
    const tara = await userWithRoles(t, admin, 'tara', []);
    const token = await newToken(tara, 'laptop');
    expect((await withToken(token.secret)).status).toBe(200);

    const reset = await as(t, admin)('PUT', `${CONSOLE}/users/tara/password`, { password: 'tara-reset-password' });
    expect(reset.status).toBe(204);
    const refused = await withToken(token.secret);
    expect(refused.status).toBe(401);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect((await as(t, tara)('GET', OWN_PERMISSIONS)).status).toBe(401);
    const stored = await as(t, admin)('GET', `${ALL_TOKENS}/${token.name}`);
    expect(stored.body.spec.revoked).toBe(true);
    expect(stored.body.spec.revokedAt).toMatch(/^\d{4}-/);
    // The new password works, and a token made after the reset is good.
    const again = await login(t, 'tara', 'tara-reset-password');
    expect((await withToken((await newToken(again, 'fresh')).secret)).status).toBe(200);
  });

  it("keeps the user's tokens and this session on their own password change, ending their other sessions", async () => {
    const uma = await userWithRoles(t, admin, 'uma', []);
    const elsewhere = await login(t, 'uma', 'uma-password-123');
    const token = await newToken(uma, 'ci');
    const changed = await as(t, uma)('PUT', `${CONSOLE}/users/-/password`, {
      oldPassword: 'uma-password-123',
      password: 'uma-new-password',
    });
    expect(changed.status).toBe(204);
    expect((await withToken(token.secret)).status).toBe(200);
    expect((await as(t, uma)('GET', OWN_PERMISSIONS)).status).toBe(200);
    expect((await as(t, elsewhere)('GET', OWN_PERMISSIONS)).status).toBe(401);
  });
});
