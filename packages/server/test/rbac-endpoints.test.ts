import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { roleBinding, startTestServer, type TestServer } from './harness.js';

const ROLES = '/api/v1alpha1/roles';
const BINDINGS = '/api/v1alpha1/rolebindings';
const UC_POSTS = '/apis/uc.api.content.svc.run/v1alpha1/posts';
const PUBLIC_POSTS = '/apis/api.content.svc.run/v1alpha1/posts';
const ALL_POSTS = '/apis/content.svc.run/v1alpha1/posts';

describe('permission endpoints, escalation and posts over HTTP', () => {
  let t: TestServer;
  let admin: Session;
  let userManager: Session;
  let roleManager: Session;
  let contributor: Session;
  let author: Session;
  let editor: Session;

  beforeAll(async () => {
    t = await startTestServer();
    admin = await login(t, ADMIN.username, ADMIN.password);
    userManager = await userWithRoles(t, admin, 'usermanager', ['role-template-manage-users']);
    roleManager = await userWithRoles(t, admin, 'rolemanager', ['role-template-manage-roles']);
    contributor = await userWithRoles(t, admin, 'cathy', ['contributor']);
    author = await userWithRoles(t, admin, 'arthur', ['author']);
    editor = await userWithRoles(t, admin, 'edna', ['editor']);
  }, 60_000);
  afterAll(() => t.close());

  it("reports a user's roles, the templates reached, and UI permissions", async () => {
    const own = await as(t, userManager)('GET', `${CONSOLE}/users/-/permissions`);
    expect(own.status).toBe(200);
    expect(own.body.roles).toEqual(['role-template-manage-users']);
    expect(own.body.permissions).toEqual(
      expect.arrayContaining(['role-template-manage-users', 'role-template-view-users']),
    );
    expect(own.body.permissions).not.toContain('role-template-own-tokens'); // hidden, though its rules count
    expect(own.body.rules.some((r: { role: string }) => r.role === 'role-template-own-tokens')).toBe(true);
    expect(own.body.uiPermissions).toEqual(expect.arrayContaining(['system:users:manage', 'system:users:view']));
    // Reading another user's permissions needs the users view template; a contributor lacks it.
    expect((await as(t, contributor)('GET', `${CONSOLE}/users/usermanager/permissions`)).status).toBe(403);
    expect((await as(t, userManager)('GET', `${CONSOLE}/users/cathy/permissions`)).body.roles).toEqual(['contributor']);
  });

  it('gives the writing roles the UI permissions of the posts pages, each including those it depends on', async () => {
    const ui = async (who: Session) => (await as(t, who)('GET', `${CONSOLE}/users/-/permissions`)).body.uiPermissions;
    expect(await ui(contributor)).toEqual(['uc:posts:own']);
    expect(await ui(author)).toEqual(['uc:posts:own', 'uc:posts:publish']);
    // An editor may list the Post model, so the server adds the resource browser's UI permission.
    expect(await ui(editor)).toEqual([
      'system:posts:manage',
      'system:resources:view',
      'uc:posts:own',
      'uc:posts:publish',
    ]);
  });

  it('refuses every escalation attempt', async () => {
    // Grant super-role to oneself through the console.
    const grant = await as(t, userManager)('POST', `${CONSOLE}/users/usermanager/permissions`, {
      roles: ['super-role'],
    });
    expect(grant.status).toBe(403);
    // Create a role with * rules.
    const star = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'everything' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    };
    expect((await as(t, roleManager)('POST', ROLES, star)).status).toBe(403);
    // Bind a role one does not hold.
    const binding = roleBinding('rolemanager-editor', 'editor', { users: ['rolemanager'] });
    expect((await as(t, roleManager)('POST', BINDINGS, binding)).status).toBe(403);
    // Aggregate a template into super-role.
    const sneaky = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'sneaky', labels: { 'rbac.authorization.svc.run/aggregate-to-super-role': 'true' } },
      rules: [],
    };
    expect((await as(t, roleManager)('POST', ROLES, sneaky)).status).toBe(403);
    // Edit a built-in role.
    const superRole = (await as(t, admin)('GET', `${ROLES}/super-role`)).body;
    expect((await as(t, admin)('PUT', `${ROLES}/super-role`, superRole)).status).toBe(403);
    expect((await as(t, admin)('DELETE', `${ROLES}/editor`)).status).toBe(403);
    // Nothing of the above was written.
    const names = (await as(t, admin)('GET', ROLES)).body.items.map(
      (r: { metadata: { name: string } }) => r.metadata.name,
    );
    expect(names).not.toContain('everything');
    expect(names).not.toContain('sneaky');
    expect((await as(t, admin)('GET', `${CONSOLE}/users/rolemanager/permissions`)).body.roles).toEqual([
      'role-template-manage-roles',
    ]);
  });

  it('lets a holder grant within what they hold, and roles take effect at once', async () => {
    const role = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'read-roles' },
      rules: [{ apiGroups: [''], resources: ['roles'], verbs: ['get', 'list'] }],
    };
    expect((await as(t, roleManager)('POST', ROLES, role)).status).toBe(201);
    await userWithRoles(t, admin, 'newbie', []);
    const granted = await as(t, admin)('POST', `${CONSOLE}/users/newbie/permissions`, { roles: ['read-roles'] });
    expect(granted.status).toBe(200);
    expect(granted.body.roles).toEqual(['read-roles']);
    const newbie = await login(t, 'newbie', 'newbie-password-123');
    expect((await as(t, newbie)('GET', ROLES)).status).toBe(200);
    expect((await as(t, newbie)('DELETE', `${ROLES}/read-roles`)).status).toBe(403);
    // Narrowing the role takes effect on the very next request (decisions are cached, but never across a role change).
    const current = (await as(t, roleManager)('GET', `${ROLES}/read-roles`)).body;
    const narrowed = await as(t, roleManager)('PUT', `${ROLES}/read-roles`, {
      ...current,
      rules: [{ apiGroups: [''], resources: ['roles'], verbs: ['get'] }],
    });
    expect(narrowed.status).toBe(200);
    expect((await as(t, newbie)('GET', ROLES)).status).toBe(403);
    expect((await as(t, newbie)('GET', `${ROLES}/read-roles`)).status).toBe(200);
  });

  it('answers access reviews naming the role and rule', async () => {
    const review = (body: object) => as(t, roleManager)('POST', `${CONSOLE}/accessreviews`, body);
    const allowed = await review({
      method: 'GET',
      path: '/apis/console.api.people.svc.run/v1alpha1/stats',
      user: 'admin',
    });
    expect(allowed.body).toMatchObject({ allowed: true, role: 'super-role' });
    const denied = await review({ method: 'GET', path: '/apis/people.svc.run/v1alpha1/persons', user: 'cathy' });
    expect(denied.body.allowed).toBe(false);
    expect(denied.body.reason).toMatch(/persons/);
    const mine = await review({ method: 'DELETE', path: '/api/v1alpha1/roles/x' });
    expect(mine.body).toMatchObject({ allowed: true, role: 'role-template-manage-roles' });
  });

  it('lets contributors write their own drafts, authors publish, editors manage all, and everyone read published posts', async () => {
    const draft = {
      apiVersion: 'content.svc.run/v1alpha1',
      kind: 'Post',
      metadata: { name: 'hello' },
      spec: { title: 'Hello', content: 'First', owner: 'someone-else', published: true },
    };
    const created = await as(t, contributor)('POST', UC_POSTS, draft);
    expect(created.status).toBe(201);
    expect(created.body.spec).toMatchObject({ owner: 'cathy', published: false });
    expect((await as(t, contributor)('PUT', `${UC_POSTS}/hello/publish`)).status).toBe(403);
    expect((await as(t, author)('GET', `${UC_POSTS}/hello`)).status).toBe(404); // not arthur's
    expect((await as(t, undefined)('GET', `${PUBLIC_POSTS}/hello`)).status).toBe(404); // not published

    const mine = await as(t, author)('POST', UC_POSTS, {
      ...draft,
      metadata: { name: 'news' },
      spec: { title: 'News' },
    });
    expect(mine.status).toBe(201);
    expect((await as(t, author)('PUT', `${UC_POSTS}/news/publish`)).body.spec.published).toBe(true);
    const listed = await as(t, undefined)('GET', PUBLIC_POSTS);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['news']);
    // The one list envelope every list answers with, Kubernetes fields included.
    expect(listed.body).toMatchObject({
      apiVersion: 'content.svc.run/v1alpha1',
      kind: 'PostList',
      page: 1,
      size: 0,
      total: 1,
      totalPages: 1,
    });
    expect(listed.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(
      (await as(t, author)('GET', UC_POSTS)).body.items.map((p: { metadata: { name: string } }) => p.metadata.name),
    ).toEqual(['news']);

    expect((await as(t, contributor)('GET', ALL_POSTS)).status).toBe(403);
    const all = await as(t, editor)('GET', ALL_POSTS);
    expect(all.body.total).toBe(2);
    expect((await as(t, editor)('DELETE', `${ALL_POSTS}/hello`)).status).toBe(200);
  });
});

describe('the challenge an anonymous caller gets', () => {
  it('offers Bearer always, and Basic when it is turned on', async () => {
    for (const [basic, expected] of [
      ['false', 'Bearer realm="svc"'],
      ['true', 'Bearer realm="svc", Basic realm="svc"'],
    ] as const) {
      const t = await startTestServer({ env: { SVC_BASIC_AUTH: basic }, credentials: 'none' });
      try {
        const response = await t.anonymous('GET', '/apis/people.svc.run/v1alpha1/persons');
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toBe(expected);
      } finally {
        await t.close();
      }
    }
  });
});
