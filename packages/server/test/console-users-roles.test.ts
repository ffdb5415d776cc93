import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { startTestServer, type TestServer } from './harness.js';

const PREVIEW = `${CONSOLE}/effectivepermissions`;
const USERS = `${CONSOLE}/users`;

interface Rule {
  role: string;
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}

describe("the console's role picker preview and user list", () => {
  let t: TestServer;
  let admin: Session;
  let userViewer: Session;
  let userManager: Session;
  let roleViewer: Session;
  let contributor: Session;

  beforeAll(async () => {
    t = await startTestServer();
    admin = await login(t, ADMIN.username, ADMIN.password);
    userViewer = await userWithRoles(t, admin, 'uviewer', ['role-template-view-users']);
    userManager = await userWithRoles(t, admin, 'umanager', ['role-template-manage-users']);
    roleViewer = await userWithRoles(t, admin, 'rviewer', ['role-template-view-roles']);
    contributor = await userWithRoles(t, admin, 'cathy', ['contributor']);
    for (const [name, displayName, email] of [
      ['alice', 'Alice Liddell', 'alice@wonder.land'],
      ['bob', 'Robert Paulson', 'bob@example.com'],
      ['carol', 'Carol Danvers', 'captain@example.com'],
    ]) {
      const created = await as(t, admin)('POST', USERS, {
        name,
        displayName,
        email,
        password: `${name}-password-123`,
        roles: name === 'carol' ? ['editor'] : [],
      });
      expect(created.status).toBe(201);
    }
  }, 60_000);
  afterAll(() => t.close());

  it('previews a manage template: its view dependency, both UI permissions, and their rules', async () => {
    const answer = await as(t, userManager)('POST', PREVIEW, { roles: ['role-template-manage-users'] });
    expect(answer.status).toBe(200);
    expect(answer.body.roles).toEqual(['role-template-manage-users']);
    expect(answer.body.permissions).toEqual(['role-template-manage-users', 'role-template-view-users']);
    expect(answer.body.uiPermissions).toEqual(['system:users:manage', 'system:users:view']);
    expect(answer.body.reachedBy).toEqual({
      'role-template-view-users': { through: 'dependency', from: 'role-template-manage-users' },
    });
    const viewRules = answer.body.rules.filter((r: Rule) => r.role === 'role-template-view-users');
    expect(viewRules[0]).toEqual({
      role: 'role-template-view-users',
      apiGroups: [''],
      resources: ['users'],
      verbs: ['get', 'list', 'watch'],
    });
  });

  it('says how each role of a built-in chain is reached, aggregation included', async () => {
    const answer = await as(t, roleViewer)('POST', PREVIEW, { roles: ['editor'] });
    expect(answer.status).toBe(200);
    const { reachedBy, permissions } = answer.body;
    expect(reachedBy.author).toEqual({ through: 'dependency', from: 'editor' });
    expect(reachedBy.contributor).toEqual({ through: 'dependency', from: 'author' });
    expect(reachedBy.guest).toEqual({ through: 'dependency', from: 'contributor' });
    expect(reachedBy.authenticated).toEqual({ through: 'dependency', from: 'guest' });
    // The self-service templates aggregate into authenticated: their rules count, their names stay hidden.
    expect(reachedBy['role-template-own-tokens']).toEqual({ through: 'aggregation', from: 'authenticated' });
    expect(permissions).toEqual(['author', 'contributor', 'editor', 'guest']);
    expect(answer.body.rules.some((r: Rule) => r.role === 'role-template-own-tokens')).toBe(true);
  });

  it('gives a super-role selection every UI permission', async () => {
    const answer = await as(t, admin)('POST', PREVIEW, { roles: ['super-role'] });
    expect(answer.body.uiPermissions).toEqual(['*']);
    expect(answer.body.rules).toEqual([
      { role: 'super-role', apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { role: 'super-role', nonResourceURLs: ['*'], verbs: ['*'] },
    ]);
  });

  it('names an unknown role at its place in the body, and refuses a malformed body', async () => {
    const unknown = await as(t, admin)('POST', PREVIEW, { roles: ['editor', 'no-such-role'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ path: '/roles/1', message: 'no role is named "no-such-role"' }]);
    const malformed = await as(t, admin)('POST', PREVIEW, { roles: 'editor' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toContain('"roles"');
  });

  it('previews for those who pick or read roles, and no one else', async () => {
    expect((await as(t, userViewer)('POST', PREVIEW, { roles: [] })).status).toBe(403);
    expect((await as(t, contributor)('POST', PREVIEW, { roles: [] })).status).toBe(403);
    expect((await as(t, undefined)('POST', PREVIEW, { roles: [] })).status).toBe(401);
    // A user manager picks roles, so reads them.
    expect((await as(t, userManager)('GET', '/api/v1alpha1/roles')).status).toBe(200);
    expect((await as(t, userViewer)('GET', '/api/v1alpha1/roles')).status).toBe(403);
  });

  it("tells in a user's permissions how each of their roles was reached", async () => {
    const own = await as(t, userManager)('GET', `${USERS}/-/permissions`);
    expect(own.body.reachedBy['role-template-view-users']).toEqual({
      through: 'dependency',
      from: 'role-template-manage-users',
    });
  });

  it('lists users with their roles, searched by a part of the username, display name or email', async () => {
    const names = async (query: string) => {
      const answer = await as(t, userViewer)('GET', `${USERS}?${query}`);
      expect(answer.status).toBe(200);
      return answer.body.items.map((item: { user: { metadata: { name: string } } }) => item.user.metadata.name);
    };
    expect(await names('keyword=ALICE')).toEqual(['alice']);
    expect(await names('keyword=paulson')).toEqual(['bob']);
    expect(await names('keyword=example.com&sort=metadata.name,asc')).toEqual(['bob', 'carol']);
    expect(await names('role=editor')).toEqual(['carol']);
    expect(await names('keyword=nobody-has-this')).toEqual([]);

    const carol = await as(t, userViewer)('GET', `${USERS}?keyword=carol`);
    expect(carol.body.items[0].roles).toEqual([{ name: 'editor', displayName: 'Post manager' }]);
    expect(carol.body.items[0].user.spec).toEqual({ displayName: 'Carol Danvers', email: 'captain@example.com' });
  });

  it('pages the user list, with and without a keyword', async () => {
    const all = await as(t, userViewer)('GET', `${USERS}?sort=metadata.name,asc&page=2&size=3`);
    // admin, alice, bob | carol, cathy, rviewer | umanager, uviewer
    expect(all.body.total).toBe(8);
    expect(all.body.totalPages).toBe(3);
    expect(all.body.items.map((i: { user: { metadata: { name: string } } }) => i.user.metadata.name)).toEqual([
      'carol',
      'cathy',
      'rviewer',
    ]);
    const searched = await as(t, userViewer)(
      'GET',
      `${USERS}?keyword=example.com&sort=metadata.name,asc&page=2&size=1`,
    );
    // bob@example.com, captain@example.com: the second page holds carol.
    expect(searched.body.total).toBe(2);
    expect(searched.body.hasPrevious).toBe(true);
    expect(searched.body.hasNext).toBe(false);
    expect(searched.body.items.map((i: { user: { metadata: { name: string } } }) => i.user.metadata.name)).toEqual([
      'carol',
    ]);
  });

  it("marks the service's own roles, and lets no one else carry the mark", async () => {
    const roles = (await as(t, roleViewer)('GET', '/api/v1alpha1/roles')).body.items as Array<{
      metadata: { name: string; labels?: Record<string, string> };
    }>;
    const marked = roles.filter((r) => r.metadata.labels?.['svc.run/built-in'] === 'true').map((r) => r.metadata.name);
    expect(marked).toEqual(
      expect.arrayContaining(['super-role', 'guest', 'editor', 'role-template-view-users', 'role-template-own-tokens']),
    );
    const pretender = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'pretender', labels: { 'svc.run/built-in': 'true' } },
      rules: [],
    };
    const refused = await as(t, admin)('POST', '/api/v1alpha1/roles', pretender);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('svc.run/built-in');
  });

  it('lists users only for those who may view them', async () => {
    expect((await as(t, contributor)('GET', USERS)).status).toBe(403);
    expect((await as(t, undefined)('GET', USERS)).status).toBe(401);
  });
});
