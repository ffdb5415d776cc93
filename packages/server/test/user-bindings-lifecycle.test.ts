import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, roleBinding, startTestServer, type TestServer } from './harness.js';

const USERS = '/api/v1alpha1/users';
const BINDINGS = '/api/v1alpha1/rolebindings';
const ALL_POSTS = '/apis/content.svc.run/v1alpha1/posts';

/**
 * Issue 13, item 2: a deleted user's bindings do not outlive them, and a user never starts with a binding that
 * existed before they did (whether left by a deleted namesake or written ahead for a name nobody had yet).
 */
describe.each(BACKENDS)("role bindings across a user's life (%s)", (backend) => {
  let t: TestServer;
  let admin: Session;
  let manager: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    admin = await login(t, ADMIN.username, ADMIN.password);
    manager = await userWithRoles(t, admin, 'manager', ['role-template-manage-users']);
  }, 60_000);
  afterAll(() => t.close());

  const bindingsNaming = async (user: string): Promise<string[]> => {
    const list = await as(t, admin)('GET', `${BINDINGS}?fieldSelector=subjects.name=${user}`);
    expect(list.status).toBe(200);
    return list.body.items.map((b: { metadata: { name: string } }) => b.metadata.name).sort();
  };

  it('removes a deleted user from every binding, so a re-created namesake starts with nothing', async () => {
    await userWithRoles(t, admin, 'bob', ['super-role', 'editor']);
    expect(await bindingsNaming('bob')).toHaveLength(2);
    expect((await as(t, admin)('DELETE', `${USERS}/bob`)).status).toBe(200);
    expect(await bindingsNaming('bob')).toEqual([]);

    // The user manager re-creates bob without roles: bob holds nothing from before.
    const again = await as(t, manager)('POST', `${CONSOLE}/users`, { name: 'bob', password: 'bob-again-123' });
    expect(again.status).toBe(201);
    expect((await as(t, admin)('GET', `${CONSOLE}/users/bob/permissions`)).body.roles).toEqual([]);
    const bob = await login(t, 'bob', 'bob-again-123');
    expect((await as(t, bob)('GET', ALL_POSTS)).status).toBe(403);
    expect((await as(t, bob)('GET', USERS)).status).toBe(403);
  });

  it('keeps a shared binding for its other subjects and deletes it with its last one', async () => {
    await userWithRoles(t, admin, 'carl', []);
    await userWithRoles(t, admin, 'dana', []);
    expect(
      (await as(t, admin)('POST', BINDINGS, roleBinding('shared-editors', 'editor', { users: ['carl', 'dana'] })))
        .status,
    ).toBe(201);
    expect((await as(t, admin)('DELETE', `${USERS}/carl`)).status).toBe(200);
    const shared = await as(t, admin)('GET', `${BINDINGS}/shared-editors`);
    expect(shared.status).toBe(200);
    expect(shared.body.subjects).toEqual([{ apiGroup: '', kind: 'User', name: 'dana' }]);
    expect((await as(t, admin)('DELETE', `${USERS}/dana`)).status).toBe(200);
    expect((await as(t, admin)('GET', `${BINDINGS}/shared-editors`)).status).toBe(404);
  });

  it('never activates a binding written ahead for a name that has no user yet', async () => {
    const ahead = await as(t, admin)(
      'POST',
      BINDINGS,
      roleBinding('ghost-super', 'super-role', { users: ['ghost', 'admin'] }),
    );
    expect(ahead.status).toBe(201);
    expect(
      (await as(t, admin)('POST', BINDINGS, roleBinding('ghost-editor', 'editor', { users: ['ghost'] }))).status,
    ).toBe(201);
    const created = await as(t, manager)('POST', `${CONSOLE}/users`, { name: 'ghost', password: 'ghost-password-1' });
    expect(created.status).toBe(201);
    expect((await as(t, admin)('GET', `${CONSOLE}/users/ghost/permissions`)).body.roles).toEqual([]);
    expect(await bindingsNaming('ghost')).toEqual([]);
    // The binding's other subject keeps it; the one left with nobody is gone.
    expect((await as(t, admin)('GET', `${BINDINGS}/ghost-super`)).body.subjects).toEqual([
      { apiGroup: '', kind: 'User', name: 'admin' },
    ]);
    expect((await as(t, admin)('GET', `${BINDINGS}/ghost-editor`)).status).toBe(404);
    const ghost = await login(t, 'ghost', 'ghost-password-1');
    expect((await as(t, ghost)('GET', USERS)).status).toBe(403);
  });

  it('does the same for a user created through the generated API', async () => {
    expect(
      (await as(t, admin)('POST', BINDINGS, roleBinding('early-super', 'super-role', { users: ['early'] }))).status,
    ).toBe(201);
    const user = { apiVersion: 'v1alpha1', kind: 'User', metadata: { name: 'early' }, spec: {} };
    expect((await as(t, manager)('POST', USERS, user)).status).toBe(201);
    expect(await bindingsNaming('early')).toEqual([]);
    expect((await as(t, admin)('GET', `${CONSOLE}/users/early/permissions`)).body.roles).toEqual([]);
  });
});

describe.each(BACKENDS)('removing a user from a binding whose role is gone (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  }, 60_000);
  afterAll(() => t.close());

  it("takes the user off a shared binding to a stopped plugin's template", async () => {
    const admin = await login(t, ADMIN.username, ADMIN.password);
    await userWithRoles(t, admin, 'ua', []);
    await userWithRoles(t, admin, 'ub', []);
    const shared = roleBinding('viewers', 'people-role-view-persons', { users: ['ua', 'ub'] });
    expect((await as(t, admin)('POST', BINDINGS, shared)).status).toBe(201);
    const stop = await as(t, admin)('PUT', `${CONSOLE}/plugins/people/plugin-state`, { enable: false });
    expect(stop.body.status?.phase ?? stop.body.phase).toBe('STOPPED');
    expect((await as(t, admin)('GET', '/api/v1alpha1/roles/people-role-view-persons')).status).toBe(404);
    const cleared = await as(t, admin)('POST', `${CONSOLE}/users/ua/permissions`, { roles: [] });
    expect(cleared.status).toBe(200);
    const after = (await as(t, admin)('GET', `${BINDINGS}/viewers`)).body;
    expect(after.subjects.map((s: { name: string }) => s.name)).toEqual(['ub']);
    // Adding a subject to it is still refused while the role is gone: that would grant.
    const widened = { ...after, subjects: [...after.subjects, { apiGroup: '', kind: 'User', name: 'ua' }] };
    expect((await as(t, admin)('PUT', `${BINDINGS}/viewers`, widened)).status).toBe(400);
  });
});
