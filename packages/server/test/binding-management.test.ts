import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../src/registry/admission.js';
import type { ServedModel } from '../src/registry/model-registry.js';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, roleBinding, startTestServer, type TestServer } from './harness.js';

const BINDINGS = '/api/v1alpha1/rolebindings';
const ROLES = '/api/v1alpha1/roles';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const PROBLEM = 'application/problem+json';
const REASON = 'managing a user needs every permission they have';

/**
 * Issue 28, item 2: changing a RoleBinding changes the roles of each user it names, so whoever writes it must hold
 * every permission of each user whose grants change, on every path (generated routes, the in-process client, the
 * console's "assign roles"). A role manager cannot strip a super administrator through bindings.
 */
describe.each(BACKENDS)('binding writes obey user management (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;
  let manager: Session;
  let bindings: ServedModel;
  const supersOf = async () =>
    (await as(t, admin)('GET', `${BINDINGS}/supers`)).body as ReturnType<typeof roleBinding> & {
      metadata: { version: number; deletionTimestamp?: string };
    };

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    admin = await login(t, ADMIN.username, ADMIN.password);
    // A second super administrator: stripping one is then not refused as "the last one" (409), only as management.
    await userWithRoles(t, admin, 'root2', ['super-role']);
    await userWithRoles(t, admin, 'gina', []);
    await userWithRoles(t, admin, 'hugo', []);
    manager = await userWithRoles(t, admin, 'rolemgr', ['role-template-manage-roles']);
    const made = await as(t, admin)(
      'POST',
      BINDINGS,
      roleBinding('supers', 'super-role', { users: ['admin', 'root2'] }, { set: 'a' }),
    );
    expect(made.status).toBe(201);
    bindings = t.server.registry.findByRoute('', 'v1alpha1', 'rolebindings')!;
  }, 60_000);
  afterAll(() => t.close());

  const refused = (response: { status: number; headers: Record<string, unknown>; body: any }, user: string) => {
    expect(response.status).toBe(403);
    expect(response.headers['content-type']).toContain(PROBLEM);
    expect(response.body.detail).toContain(`the roles of user "${user}"`);
    expect(response.body.detail).toContain('"super-role"');
    expect(response.body.detail).toContain(REASON);
  };

  it("refuses a role manager deleting a super administrator's binding; the binding stays", async () => {
    refused(await as(t, manager)('DELETE', `${BINDINGS}/admin-super-role`), 'admin');
    refused(await as(t, manager)('DELETE', `${BINDINGS}/supers`), 'admin');
    const kept = await as(t, admin)('GET', `${BINDINGS}/admin-super-role`);
    expect(kept.status).toBe(200);
    expect(kept.body.metadata.deletionTimestamp).toBeUndefined();
    expect((await supersOf()).metadata.deletionTimestamp).toBeUndefined();
  });

  it('refuses taking a super administrator out of a binding by update, patch or apply; the binding is unchanged', async () => {
    const before = await supersOf();
    const put = await as(t, manager)('PUT', `${BINDINGS}/supers`, {
      ...before,
      subjects: [{ apiGroup: '', kind: 'User', name: 'admin' }],
    });
    refused(put, 'root2');
    const patched = await as(t, manager)(
      'PATCH',
      `${BINDINGS}/supers`,
      { subjects: [{ apiGroup: '', kind: 'User', name: 'root2' }] },
      MERGE,
    );
    refused(patched, 'admin');
    const applied = await as(t, manager)(
      'PATCH',
      `${BINDINGS}/supers?fieldManager=kubectl&force=true`,
      JSON.stringify({ ...roleBinding('supers', 'super-role', { users: ['admin'] }), metadata: { name: 'supers' } }),
      APPLY,
    );
    refused(applied, 'root2');
    const after = await supersOf();
    expect(after.subjects.map((s) => s.name)).toEqual(['admin', 'root2']);
    expect(after.metadata.version).toBe(before.metadata.version);
  });

  it('refuses a deletecollection that takes in a super administrator’s binding, deleting none of it', async () => {
    const count = async () => (await as(t, admin)('GET', BINDINGS)).body.items.length;
    const total = await count();
    const all = await as(t, manager)('DELETE', BINDINGS);
    expect(all.status).toBe(403);
    expect(all.headers['content-type']).toContain(PROBLEM);
    expect(all.body.detail).toContain(REASON);
    const selected = await as(t, manager)('DELETE', `${BINDINGS}?labelSelector=set=a`);
    expect(selected.status).toBe(403);
    expect(selected.body.detail).toContain(REASON);
    expect(await count()).toBe(total);
    expect((await supersOf()).metadata.deletionTimestamp).toBeUndefined();
  });

  it('refuses giving a super administrator a role through a new binding', async () => {
    const made = await as(t, manager)(
      'POST',
      BINDINGS,
      roleBinding('more-for-admin', 'role-template-view-roles', { users: ['admin'] }),
    );
    refused(made, 'admin');
    expect((await as(t, admin)('GET', `${BINDINGS}/more-for-admin`)).status).toBe(404);
  });

  it('refuses the same through the in-process client when a user is the actor', async () => {
    const actor: Actor = { kind: 'user', principal: { username: 'rolemgr', via: 'session' } };
    const error = await t.server.objects.delete(bindings, 'admin-super-role', { actor }).then(
      () => undefined,
      (e: { status?: number; message?: string }) => e,
    );
    expect(error?.status).toBe(403);
    expect(error?.message).toContain(REASON);
    expect((await as(t, admin)('GET', `${BINDINGS}/admin-super-role`)).body.metadata.deletionTimestamp).toBeUndefined();
  });

  it('refuses deleting or narrowing a role that makes someone a super administrator; the role and binding stay', async () => {
    const alias = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'root-alias', annotations: { 'rbac.authorization.svc.run/dependencies': '["super-role"]' } },
      rules: [],
    };
    expect((await as(t, admin)('POST', ROLES, alias)).status).toBe(201);
    await userWithRoles(t, admin, 'root3', ['root-alias']);
    const deleted = await as(t, manager)('DELETE', `${ROLES}/root-alias`);
    expect(deleted.status).toBe(403);
    expect(deleted.body.detail).toContain('through Role "root-alias", the permissions of user "root3"');
    expect(deleted.body.detail).toContain(REASON);
    const stored = (await as(t, admin)('GET', `${ROLES}/root-alias`)).body;
    const narrowed = await as(t, manager)('PUT', `${ROLES}/root-alias`, {
      ...stored,
      metadata: { ...stored.metadata, annotations: {} },
    });
    expect(narrowed.status).toBe(403);
    expect(narrowed.body.detail).toContain('user "root3"');
    const after = await as(t, admin)('GET', `${ROLES}/root-alias`);
    expect(after.body.metadata.version).toBe(stored.metadata.version);
    expect(after.body.metadata.deletionTimestamp).toBeUndefined();
    expect((await as(t, admin)('GET', `${CONSOLE}/users/root3/permissions`)).body.permissions).toContain('super-role');
  });

  it("refuses a role manager taking a group's roles beyond their own, or from a super administrator in it", async () => {
    await userWithRoles(t, admin, 'ivy', []);
    const grouped = await as(t, admin)('PATCH', '/api/v1alpha1/users/ivy', { spec: { groups: ['ops'] } }, MERGE);
    expect(grouped.status).toBe(200);
    for (const [name, role] of [
      ['ops-supers', 'super-role'],
      ['ops-viewers', 'role-template-view-roles'],
    ] as const) {
      const created = await as(t, admin)('POST', BINDINGS, roleBinding(name, role, { groups: ['ops'] }));
      expect(created.status).toBe(201);
    }
    // super-role through the group: the manager does not hold it, so may neither take nor narrow it.
    for (const attempt of [
      await as(t, manager)('DELETE', `${BINDINGS}/ops-supers`),
      await as(t, manager)('PATCH', `${BINDINGS}/ops-supers`, { subjects: [] }, MERGE),
    ]) {
      expect(attempt.status).toBe(403);
      expect(attempt.headers['content-type']).toContain(PROBLEM);
      expect(attempt.body.detail).toContain(
        'you may not change, through RoleBinding "ops-supers", the roles of group "ops": role "super-role" grants what you do not hold',
      );
    }
    // A role the manager holds, but the group holds a super administrator: managing them needs everything they have.
    const viewers = await as(t, manager)('DELETE', `${BINDINGS}/ops-viewers`);
    expect(viewers.status).toBe(403);
    expect(viewers.body.detail).toContain('the roles of user "ivy"');
    expect(viewers.body.detail).toContain(REASON);
    for (const name of ['ops-supers', 'ops-viewers']) {
      const kept = await as(t, admin)('GET', `${BINDINGS}/${name}`);
      expect(kept.body.metadata.deletionTimestamp).toBeUndefined();
      expect(kept.body.subjects).toEqual([{ apiGroup: '', kind: 'Group', name: 'ops' }]);
    }
    const ivy = await as(t, admin)('GET', `${CONSOLE}/users/ivy/permissions`);
    expect(ivy.body.permissions).toEqual(['role-template-view-roles', 'super-role']);
    // A group of users the manager may manage: theirs to bind and unbind.
    const crew = roleBinding('crew-viewers', 'role-template-view-roles', { groups: ['crew'] });
    expect((await as(t, manager)('POST', BINDINGS, crew)).status).toBe(201);
    expect((await as(t, manager)('DELETE', `${BINDINGS}/crew-viewers`)).status).toBe(200);
  });

  it('refuses deleting or narrowing a role that makes a group super administrators; the role stays', async () => {
    const alias = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'ops-root', annotations: { 'rbac.authorization.svc.run/dependencies': '["super-role"]' } },
      rules: [],
    };
    expect((await as(t, admin)('POST', ROLES, alias)).status).toBe(201);
    const opsRoot = roleBinding('ops-root', 'ops-root', { groups: ['ops'] });
    expect((await as(t, admin)('POST', BINDINGS, opsRoot)).status).toBe(201);
    const stored = (await as(t, admin)('GET', `${ROLES}/ops-root`)).body;
    for (const attempt of [
      await as(t, manager)('DELETE', `${ROLES}/ops-root`),
      await as(t, manager)('PUT', `${ROLES}/ops-root`, {
        ...stored,
        metadata: { ...stored.metadata, annotations: {} },
      }),
    ]) {
      expect(attempt.status).toBe(403);
      expect(attempt.body.detail).toContain(
        'you may not change, through Role "ops-root", the permissions of group "ops": role "ops-root" grants what you do not hold',
      );
    }
    const after = await as(t, admin)('GET', `${ROLES}/ops-root`);
    expect(after.body.metadata.version).toBe(stored.metadata.version);
    expect(after.body.metadata.deletionTimestamp).toBeUndefined();
    expect((await as(t, admin)('GET', `${BINDINGS}/ops-root`)).status).toBe(200);
  });

  it('still lets a role manager manage the bindings of users whose permissions they hold', async () => {
    const view = roleBinding('viewers', 'role-template-view-roles', { users: ['gina'] }, { set: 'b' });
    const made = await as(t, manager)('POST', BINDINGS, view);
    expect(made.status).toBe(201);
    const added = await as(t, manager)(
      'PATCH',
      `${BINDINGS}/viewers`,
      { subjects: view.subjects.concat([{ apiGroup: '', kind: 'User', name: 'hugo' }]) },
      MERGE,
    );
    expect(added.status).toBe(200);
    expect(added.body.subjects.map((s: { name: string }) => s.name)).toEqual(['gina', 'hugo']);
    const narrowed = await as(t, manager)('PUT', `${BINDINGS}/viewers`, { ...added.body, subjects: view.subjects });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.subjects.map((s: { name: string }) => s.name)).toEqual(['gina']);
    expect((await as(t, manager)('DELETE', `${BINDINGS}/viewers`)).status).toBe(200);
    expect((await as(t, admin)('GET', `${BINDINGS}/viewers`)).status).toBe(404);
    for (const name of ['b1', 'b2']) {
      const hugo = roleBinding(name, 'role-template-view-roles', { users: ['hugo'] }, { set: 'b' });
      expect((await as(t, manager)('POST', BINDINGS, hugo)).status).toBe(201);
    }
    const collection = await as(t, manager)('DELETE', `${BINDINGS}?labelSelector=set=b`);
    expect(collection.status).toBe(200);
    expect((await as(t, admin)('GET', `${BINDINGS}?labelSelector=set=b`)).body.items).toEqual([]);
    // And the roles those users hold: narrowed, then deleted with its bindings.
    const reader = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'role-reader' },
      rules: [{ apiGroups: [''], resources: ['roles'], verbs: ['get', 'list'] }],
    };
    expect((await as(t, manager)('POST', ROLES, reader)).status).toBe(201);
    const readers = roleBinding('readers', 'role-reader', { users: ['gina'] });
    expect((await as(t, manager)('POST', BINDINGS, readers)).status).toBe(201);
    const fewer = await as(t, manager)(
      'PATCH',
      `${ROLES}/role-reader`,
      { rules: [{ apiGroups: [''], resources: ['roles'], verbs: ['get'] }] },
      MERGE,
    );
    expect(fewer.status).toBe(200);
    expect((await as(t, manager)('DELETE', `${ROLES}/role-reader`)).status).toBe(200);
    expect((await as(t, admin)('GET', `${BINDINGS}/readers`)).status).toBe(404);
  });
});
