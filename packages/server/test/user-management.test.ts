import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';

const USERS = '/api/v1alpha1/users';
const BINDINGS = '/api/v1alpha1/rolebindings';
const ROLES = '/api/v1alpha1/roles';
const ALL_TOKENS = '/apis/security.svc.run/v1alpha1/personalaccesstokens';
const OWN_TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const PROBLEM = 'application/problem+json';

/**
 * Issue 13, item 1: managing a user is granting. Whoever acts on another user's account (password, disabled flag,
 * deletion, roles, tokens) must already hold everything that user holds; and the last enabled super administrator
 * cannot be disabled, deleted or stripped of super-role, whoever asks.
 */
describe.each(BACKENDS)('managing users is granting (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;
  let manager: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    admin = await login(t, ADMIN.username, ADMIN.password);
    manager = await userWithRoles(t, admin, 'manager', ['role-template-manage-users']);
  }, 60_000);
  afterAll(() => t.close());

  const adminStillSignsIn = async () => {
    expect((await t.anonymous('POST', '/login', { username: ADMIN.username, password: ADMIN.password })).status).toBe(
      200,
    );
    expect(t.server.authn.users.isActive(ADMIN.username)).toBe(true);
  };

  it("refuses a user manager resetting the super administrator's password (403 naming super-role)", async () => {
    const reset = await as(t, manager)('PUT', `${CONSOLE}/users/admin/password`, { password: 'taken-over-123' });
    expect(reset.status).toBe(403);
    expect(reset.headers['content-type']).toContain(PROBLEM);
    expect(reset.body.detail).toContain('reset the password of user "admin"');
    expect(reset.body.detail).toContain('"super-role"');
    expect((await t.anonymous('POST', '/login', { username: 'admin', password: 'taken-over-123' })).status).toBe(401);
    await adminStillSignsIn();
  });

  it('refuses a user manager disabling or deleting the super administrator through the generated API', async () => {
    const patched = await as(t, manager)('PATCH', `${USERS}/admin`, { spec: { disabled: true } }, MERGE);
    expect(patched.status).toBe(403);
    expect(patched.body.detail).toContain('user "admin"');
    const current = (await as(t, admin)('GET', `${USERS}/admin`)).body;
    const put = await as(t, manager)('PUT', `${USERS}/admin`, {
      ...current,
      spec: { ...current.spec, disabled: true },
    });
    expect(put.status).toBe(403);
    const deleted = await as(t, manager)('DELETE', `${USERS}/admin`);
    expect(deleted.status).toBe(403);
    expect(deleted.headers['content-type']).toContain(PROBLEM);
    expect(deleted.body.detail).toContain('"super-role"');
    const status = await as(t, manager)('PUT', `${USERS}/admin/status`, { ...current, status: {} });
    expect(status.status).toBe(403);
    const collection = await as(t, manager)('DELETE', `${USERS}?fieldSelector=metadata.name=admin`);
    expect(collection.status).toBe(403);
    const after = (await as(t, admin)('GET', `${USERS}/admin`)).body;
    expect(after.spec.disabled).toBeUndefined();
    expect(after.metadata.deletionTimestamp).toBeUndefined();
    await adminStillSignsIn();
  });

  it("refuses a user manager changing the super administrator's roles", async () => {
    const stripped = await as(t, manager)('POST', `${CONSOLE}/users/admin/permissions`, { roles: [] });
    expect(stripped.status).toBe(403);
    expect(stripped.body.detail).toContain('change the roles of user "admin"');
    expect((await as(t, admin)('GET', `${CONSOLE}/users/admin/permissions`)).body.roles).toEqual(['super-role']);
  });

  it('refuses acting on a user who holds a role the manager lacks, naming that role', async () => {
    await userWithRoles(t, admin, 'edith', ['editor']);
    const reset = await as(t, manager)('PUT', `${CONSOLE}/users/edith/password`, { password: 'edith-new-password' });
    expect(reset.status).toBe(403);
    expect(reset.body.detail).toContain('role "editor"');
    expect(reset.body.detail).toContain('content.svc.run');
    expect((await as(t, manager)('DELETE', `${USERS}/edith`)).status).toBe(403);
    await login(t, 'edith', 'edith-password-123');
  });

  it('lets a user manager manage a user holding no more than they do', async () => {
    await userWithRoles(t, admin, 'vera', ['role-template-view-users']);
    const reset = await as(t, manager)('PUT', `${CONSOLE}/users/vera/password`, { password: 'vera-new-password' });
    expect(reset.status).toBe(204);
    await login(t, 'vera', 'vera-new-password');
    expect((await as(t, manager)('PATCH', `${USERS}/vera`, { spec: { disabled: true } }, MERGE)).status).toBe(200);
    expect((await as(t, manager)('POST', `${CONSOLE}/users/vera/permissions`, { roles: [] })).status).toBe(200);
    expect((await as(t, manager)('DELETE', `${USERS}/vera`)).status).toBe(200);
  });

  it('deletes a collection of users all or nothing: one user the manager may not touch refuses the whole', async () => {
    await userWithRoles(t, admin, 'lesser', []);
    const names = async () =>
      ((await as(t, admin)('GET', USERS)).body.items as any[]).map((u) => u.metadata.name).sort();
    const before = await names();
    expect(before).toEqual(expect.arrayContaining(['admin', 'lesser', 'manager']));
    const collection = await as(t, manager)('DELETE', USERS);
    expect(collection.status).toBe(403);
    expect(collection.body.detail).toMatch(/you may not delete user "(admin|edith)"/);
    expect(await names()).toEqual(before);
    await login(t, 'lesser', 'lesser-password-123');
  });

  it("guards other users' tokens on the generated token API by the same rule", async () => {
    const keeperRole = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'token-keeper' },
      rules: [{ apiGroups: ['security.svc.run'], resources: ['personalaccesstokens'], verbs: ['*'] }],
    };
    expect((await as(t, admin)('POST', ROLES, keeperRole)).status).toBe(201);
    const keeper = await userWithRoles(t, admin, 'keeper', ['token-keeper']);
    const adminToken = await as(t, admin)('POST', OWN_TOKENS, { spec: { name: 'admin ci', roles: ['super-role'] } });
    const name = adminToken.body.metadata.name;
    const secret = adminToken.body.metadata.annotations['security.svc.run/access-token'];
    const revoke = await as(t, keeper)('PATCH', `${ALL_TOKENS}/${name}`, { spec: { revoked: true } }, MERGE);
    expect(revoke.status).toBe(403);
    expect(revoke.body.detail).toContain('personal access tokens of user "admin"');
    expect((await as(t, keeper)('DELETE', `${ALL_TOKENS}/${name}`)).status).toBe(403);
    expect((await as(t, keeper)('DELETE', ALL_TOKENS)).status).toBe(403);
    expect((await t.anonymous('GET', USERS, undefined, { authorization: `Bearer ${secret}` })).status).toBe(200);
    // A token of someone who holds nothing the keeper lacks can be revoked.
    const plain = await userWithRoles(t, admin, 'plain', []);
    const plainToken = (await as(t, plain)('POST', OWN_TOKENS, { spec: { name: 'plain', roles: [] } })).body.metadata
      .name;
    expect((await as(t, keeper)('DELETE', `${ALL_TOKENS}/${plainToken}`)).status).toBe(200);
  });

  it('never lets the last enabled super administrator be disabled, deleted or stripped (409), not even by themself', async () => {
    const disabled = await as(t, admin)('PATCH', `${USERS}/admin`, { spec: { disabled: true } }, MERGE);
    expect(disabled.status).toBe(409);
    expect(disabled.headers['content-type']).toContain(PROBLEM);
    expect(disabled.body.detail).toContain('last enabled holder of super-role');
    expect((await as(t, admin)('DELETE', `${USERS}/admin`)).status).toBe(409);
    const stripped = await as(t, admin)('POST', `${CONSOLE}/users/admin/permissions`, { roles: ['editor'] });
    expect(stripped.status).toBe(409);
    expect(stripped.body.detail).toContain('last enabled holder of super-role');
    const binding = (await as(t, admin)('GET', `${BINDINGS}?fieldSelector=roleRef.name=super-role`)).body.items[0];
    expect((await as(t, admin)('DELETE', `${BINDINGS}/${binding.metadata.name}`)).status).toBe(409);
    expect(
      (await as(t, admin)('PUT', `${BINDINGS}/${binding.metadata.name}`, { ...binding, subjects: [] })).status,
    ).toBe(409);
    expect((await as(t, admin)('GET', `${CONSOLE}/users/admin/permissions`)).body.roles).toEqual(['super-role']);

    // A second super administrator who is disabled does not count; once enabled, either may go.
    await userWithRoles(t, admin, 'root', ['super-role']);
    expect((await as(t, admin)('PATCH', `${USERS}/root`, { spec: { disabled: true } }, MERGE)).status).toBe(200);
    expect((await as(t, admin)('PATCH', `${USERS}/admin`, { spec: { disabled: true } }, MERGE)).status).toBe(409);
    expect((await as(t, admin)('PATCH', `${USERS}/root`, { spec: { disabled: false } }, MERGE)).status).toBe(200);
    expect((await as(t, admin)('POST', `${CONSOLE}/users/root/permissions`, { roles: [] })).status).toBe(200);
    await adminStillSignsIn();
  });

  it('counts super-role reached through another role, and keeps it when that role would go', async () => {
    const admins = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'admins', annotations: { 'rbac.authorization.svc.run/dependencies': '["super-role"]' } },
      rules: [],
    };
    expect((await as(t, admin)('POST', ROLES, admins)).status).toBe(201);
    // Holding super-role through `admins` instead of directly is still holding it.
    expect((await as(t, admin)('POST', `${CONSOLE}/users/admin/permissions`, { roles: ['admins'] })).status).toBe(200);
    admin = await login(t, ADMIN.username, ADMIN.password);
    const dropped = await as(t, admin)('DELETE', `${ROLES}/admins`);
    expect(dropped.status).toBe(409);
    expect(dropped.body.detail).toContain('would lose super-role through this change of Role "admins"');
    const current = (await as(t, admin)('GET', `${ROLES}/admins`)).body;
    const emptied = { ...current, metadata: { ...current.metadata, annotations: {} } };
    expect((await as(t, admin)('PUT', `${ROLES}/admins`, emptied)).status).toBe(409);
    expect((await as(t, admin)('GET', USERS)).status).toBe(200);
  });
});
