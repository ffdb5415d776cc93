import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-grants');
const PLUGINS = `${CONSOLE}/plugins`;
const USERS = '/api/v1alpha1/users';

/**
 * What a plugin declares in `extensions/` reaches only its own API and roles (issue 13, item 6). Each fixture is
 * installed and enabled over HTTP; a refused declaration leaves the plugin FAILED, naming the file, object and reason,
 * and the visitor or user it would have empowered is still refused.
 */
describe.each(BACKENDS)('what a plugin may declare (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;

  const enable = async (name: string) => {
    const { body, headers } = multipart(await tgzOf(path.join(FIXTURES, name)));
    const installed = await t.request('POST', `${PLUGINS}/install`, body, headers);
    expect(installed.status, installed.text).toBe(201);
    const started = await t.request('PUT', `${PLUGINS}/${name}/plugin-state`, { enable: true });
    expect(started.status, started.text).toBe(200);
    return started.body.status as { phase: string; conditions: Array<{ reason: string; message: string }> };
  };

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(() => t.close());

  it('refuses a template that depends on super-role and aggregates into anonymous', async () => {
    const status = await enable('grants-super-dependency');
    expect(status.phase).toBe('FAILED');
    expect(status.conditions[0]!.reason).toBe('StartFailed');
    expect(status.conditions[0]!.message).toMatch(
      /^extensions\/roles\.yaml#1 \(Role "grants-super-dependency-role-view-all"\): .*it depends on super-role, which nothing may reach/,
    );
    expect((await t.request('GET', '/api/v1alpha1/roles/grants-super-dependency-role-view-all')).status).toBe(404);
    expect((await t.anonymous('GET', USERS)).status).toBe(401);
    expect((await t.anonymous('DELETE', `${USERS}/admin`)).status).toBe(401);
  });

  it('checks a declared object stored before these rules again at start, and removes it', async () => {
    const roles = t.server.registry.findByRoute('', 'v1alpha1', 'roles')!;
    // As an older svc left it at shutdown: the plugin's own template, exactly as declared.
    await t.server.objects.create(roles, {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: {
        name: 'grants-super-dependency-role-view-all',
        labels: {
          'svc.run/role-template': 'true',
          'rbac.authorization.svc.run/aggregate-to-anonymous': 'true',
          'plugin.svc.run/plugin-name': 'grants-super-dependency',
        },
        annotations: { 'rbac.authorization.svc.run/dependencies': '["super-role"]' },
      },
      rules: [],
    });
    expect((await t.anonymous('GET', USERS)).status).toBe(200);
    const restarted = await t.request('PUT', `${PLUGINS}/grants-super-dependency/plugin-state`, { enable: true });
    expect(restarted.body.status.phase).toBe('FAILED');
    expect(restarted.body.status.conditions[0].message).toMatch(/it depends on super-role, which nothing may reach/);
    expect((await t.request('GET', '/api/v1alpha1/roles/grants-super-dependency-role-view-all')).status).toBe(404);
    expect((await t.anonymous('GET', USERS)).status).toBe(401);
  });

  it('refuses a binding to super-role', async () => {
    const mallory = await userWithRoles(t, admin, 'mallory', []);
    const status = await enable('grants-super-binding');
    expect(status.phase).toBe('FAILED');
    expect(status.conditions[0]!.message).toMatch(
      /^extensions\/bindings\.yaml#1 \(RoleBinding "grants-super-binding-mallory"\): .*it binds role "super-role", which is not a role of plugin "grants-super-binding"/,
    );
    expect((await t.request('GET', '/api/v1alpha1/rolebindings/grants-super-binding-mallory')).status).toBe(404);
    expect((await as(t, mallory)('GET', USERS)).status).toBe(403);
    const review = await t.request('POST', `${CONSOLE}/accessreviews`, { method: 'GET', path: USERS, user: 'mallory' });
    expect(review.body.allowed).toBe(false);
  });

  it('refuses rules for an API the plugin does not own, naming the rule', async () => {
    const status = await enable('grants-foreign-rules');
    expect(status.phase).toBe('FAILED');
    expect(status.conditions[0]!.message).toMatch(
      /^extensions\/roles\.yaml#1 \(Role "grants-foreign-rules-role-view-users"\): .*rules\[1\]: apiGroup "" is not a group plugin "grants-foreign-rules" owns/,
    );
    expect((await t.anonymous('GET', USERS)).status).toBe(401);
  });

  it("keeps the seed's public API: own rules aggregated into anonymous and editor", async () => {
    const status = await enable('grants-public');
    expect(status.phase).toBe('STARTED');
    expect((await t.anonymous('GET', '/apis/api.grants-public.svc.run/v1alpha1/hello')).body).toEqual({
      hello: 'public',
    });
    expect((await t.anonymous('GET', '/apis/api.grants-public.svc.run/v1alpha1/deep/a/b/c')).body).toEqual({
      hello: 'deep',
    });
    expect((await t.anonymous('GET', '/apis/grants.example.com/v1alpha1/cards')).status).toBe(401);
    const editor = await userWithRoles(t, admin, 'ed', ['editor']);
    expect((await as(t, editor)('GET', '/apis/grants.example.com/v1alpha1/cards')).body).toEqual({ hello: 'cards' });
    // Nothing beyond its own API came along.
    expect((await as(t, editor)('GET', USERS)).status).toBe(403);
  });
});
