import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, PEOPLE_PLUGINS, pluginReport, roleBinding, startTestServer, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-grants');
const PLUGINS = `${CONSOLE}/plugins`;
const PLUGIN_OBJECTS = '/apis/plugin.svc.run/v1alpha1/plugins';
const ROLES = '/api/v1alpha1/roles';
const BINDINGS = '/api/v1alpha1/rolebindings';
const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const TEMPLATE = 'role-template-manage-plugins';
const COUNTS_AS_SUPER = `${TEMPLATE}, which counts as super-role`;
const SUPER_ONLY = 'only a super administrator may';
const MERGE = { 'content-type': 'application/merge-patch+json' };

/** Exactly the rules of the plugin management templates, in a role of an administrator's making. */
const pluginOpsRole = {
  apiVersion: 'v1alpha1',
  kind: 'Role',
  metadata: { name: 'plugin-ops' },
  rules: [
    { apiGroups: ['plugin.svc.run'], resources: ['plugins'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['plugin.svc.run'], resources: ['plugins'], verbs: ['create', 'update', 'patch', 'delete'] },
    { apiGroups: ['api.console.svc.run'], resources: ['plugins', 'plugins/logs'], verbs: ['get', 'list'] },
    {
      apiGroups: ['api.console.svc.run'],
      resources: ['plugins', 'plugins/upgrade', 'plugins/plugin-state'],
      verbs: ['*'],
    },
  ],
};

/**
 * Issue 28, item 1: a plugin runs in the server's process with everything it has, so putting plugin code to work is a
 * super administrator's act, and the template that allows it counts as super-role: only a super administrator may
 * grant it, by any path. Holders of the plugin view template still read plugin state and logs.
 */
describe.each(BACKENDS)('plugin code is a super administrator’s (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;
  /** Holds the plugin management rules through a custom role, and manages roles and users: not a super administrator. */
  let ops: Session;
  let viewer: Session;
  let archive: { body: Buffer; headers: Record<string, string> };

  beforeAll(async () => {
    // As `svc serve` gets it: in the environment (the harness passes its own copy in the settings too).
    process.env.SVC_ADMIN_PASSWORD = ADMIN.password;
    t = await startTestServer({ backend, pluginsDirs: [PEOPLE_PLUGINS] });
    admin = await login(t, ADMIN.username, ADMIN.password);
    expect((await as(t, admin)('POST', ROLES, pluginOpsRole)).status).toBe(201);
    ops = await userWithRoles(t, admin, 'ops', [
      'plugin-ops',
      'role-template-manage-roles',
      'role-template-manage-users',
    ]);
    viewer = await userWithRoles(t, admin, 'viewer', ['role-template-view-plugins']);
    archive = multipart(await tgzOf(path.join(FIXTURES, 'grants-hidden')));
  }, 60_000);
  afterAll(() => t.close());

  it('deletes SVC_ADMIN_PASSWORD from the environment once the administrator exists', () => {
    expect(process.env.SVC_ADMIN_PASSWORD).toBeUndefined();
    expect('SVC_ADMIN_PASSWORD' in process.env).toBe(false);
  });

  it('makes a holder of the plugin management template a super administrator, as the console shows it', async () => {
    const holder = await userWithRoles(t, admin, 'plugin-admin', [TEMPLATE]);
    const mine = await as(t, holder)('GET', `${CONSOLE}/users/-/permissions`);
    expect(mine.body.roles).toEqual([TEMPLATE]);
    expect(mine.body.permissions).toContain('super-role');
    expect(mine.body.reachedBy['super-role']).toEqual({ through: 'dependency', from: TEMPLATE });
    expect(mine.body.uiPermissions).toContain('*');
    const template = await as(t, admin)('GET', `${ROLES}/${TEMPLATE}`);
    expect(template.body.metadata.annotations['rbac.authorization.svc.run/display-name']).toBe(
      'Plugins management (super administrator)',
    );
    expect(JSON.parse(template.body.metadata.annotations['rbac.authorization.svc.run/dependencies'])).toEqual([
      'role-template-view-plugins',
      'super-role',
    ]);
    const installed = await as(t, holder)('POST', `${PLUGINS}/install`, archive.body, archive.headers);
    expect(installed.status).toBe(201);
    expect((await as(t, admin)('DELETE', `${PLUGIN_OBJECTS}/grants-hidden`)).status).toBe(200);
    await expect.poll(async () => (await as(t, admin)('GET', `${PLUGIN_OBJECTS}/grants-hidden`)).status).toBe(404);
  });

  it('refuses installing, upgrading and enabling to anyone else, whatever their rules (403 saying why)', async () => {
    const install = await as(t, ops)('POST', `${PLUGINS}/install`, archive.body, archive.headers);
    expect(install.status).toBe(403);
    expect(install.headers['content-type']).toContain('application/problem+json');
    expect(install.body.detail).toContain(`${SUPER_ONLY} install a plugin`);
    expect(install.body.detail).toContain("runs inside svc with all of the server's rights");
    expect((await as(t, admin)('GET', `${PLUGIN_OBJECTS}/grants-hidden`)).status).toBe(404);

    expect((await as(t, admin)('POST', `${PLUGINS}/install`, archive.body, archive.headers)).status).toBe(201);
    const upgrade = await as(t, ops)('POST', `${PLUGINS}/grants-hidden/upgrade`, archive.body, archive.headers);
    expect(upgrade.status).toBe(403);
    expect(upgrade.body.detail).toContain(`${SUPER_ONLY} upgrade plugin "grants-hidden"`);
    const enable = await as(t, ops)('PUT', `${PLUGINS}/grants-hidden/plugin-state`, { enable: true });
    expect(enable.status).toBe(403);
    expect(enable.body.detail).toContain(`${SUPER_ONLY} enable plugin "grants-hidden"`);
    const patched = await as(t, ops)('PATCH', `${PLUGIN_OBJECTS}/grants-hidden`, { spec: { enabled: true } }, MERGE);
    expect(patched.status).toBe(403);
    expect(patched.body.detail).toContain(`${SUPER_ONLY} enable plugin "grants-hidden"`);
    const stored = await as(t, admin)('GET', `${PLUGIN_OBJECTS}/grants-hidden`);
    expect(stored.body.spec.enabled).toBe(false);
    expect((await pluginReport(t, 'grants-hidden')).phase).not.toBe('STARTED');
  });

  it('lets a holder of only the view template read plugin state and logs, and nothing more', async () => {
    const list = await as(t, viewer)('GET', PLUGINS);
    expect(list.status).toBe(200);
    expect(list.body.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toContain('people');
    expect((await as(t, viewer)('GET', `${PLUGINS}/people`)).body.status.phase).toBe('STARTED');
    expect((await as(t, viewer)('GET', `${PLUGINS}/people/logs`)).status).toBe(200);
    expect((await as(t, viewer)('GET', `${PLUGIN_OBJECTS}/people`)).status).toBe(200);
    expect((await as(t, viewer)('POST', `${PLUGINS}/install`, archive.body, archive.headers)).status).toBe(403);
    expect((await as(t, viewer)('PUT', `${PLUGINS}/people/plugin-state`, { enable: false })).status).toBe(403);
    expect((await as(t, viewer)('DELETE', `${PLUGIN_OBJECTS}/people`)).status).toBe(403);
  });

  it('refuses granting the template to anyone not a super administrator: binding, dependency, aggregation', async () => {
    const bind = await as(t, ops)('POST', BINDINGS, roleBinding('ops-gets-plugins', TEMPLATE, { users: ['viewer'] }));
    expect(bind.status).toBe(403);
    expect(bind.body.detail).toContain(COUNTS_AS_SUPER);
    expect(bind.body.detail).toContain(`${SUPER_ONLY} grant it`);

    const dependent = await as(t, ops)('POST', ROLES, {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: {
        name: 'wraps-plugins',
        annotations: { 'rbac.authorization.svc.run/dependencies': JSON.stringify([TEMPLATE]) },
      },
      rules: [],
    });
    expect(dependent.status).toBe(403);
    expect(dependent.body.detail).toContain(COUNTS_AS_SUPER);

    const aggregated = await as(t, ops)('POST', ROLES, {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'joins-plugins', labels: { [`rbac.authorization.svc.run/aggregate-to-${TEMPLATE}`]: 'true' } },
      rules: [{ apiGroups: [''], resources: ['roles'], verbs: ['get'] }],
    });
    expect(aggregated.status).toBe(403);
    expect(aggregated.body.detail).toContain(`may not aggregate into ${TEMPLATE}: it counts as super-role`);
    for (const name of ['wraps-plugins', 'joins-plugins']) {
      expect((await as(t, admin)('GET', `${ROLES}/${name}`)).status).toBe(404);
    }
    expect((await as(t, admin)('GET', `${BINDINGS}/ops-gets-plugins`)).status).toBe(404);

    const assigned = await as(t, ops)('POST', `${CONSOLE}/users/viewer/permissions`, {
      roles: ['role-template-view-plugins', TEMPLATE],
    });
    expect(assigned.status).toBe(403);
    expect(assigned.body.detail).toContain(COUNTS_AS_SUPER);
    expect((await as(t, admin)('GET', `${CONSOLE}/users/viewer/permissions`)).body.roles).toEqual([
      'role-template-view-plugins',
    ]);
  });

  it('refuses the template in a token of someone who does not hold it, saying it counts as super-role', async () => {
    const token = await as(t, ops)('POST', TOKENS, { spec: { name: 'plugins', roles: [TEMPLATE] } });
    expect(token.status).toBe(403);
    expect(token.body.detail).toContain(`${TEMPLATE} counts as super-role`);
    expect(token.body.detail).toContain(`${SUPER_ONLY} hold it or put it in a token`);
  });
});
