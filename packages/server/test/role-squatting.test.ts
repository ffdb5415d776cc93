import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import {
  BACKENDS,
  PEOPLE_PLUGINS,
  PERSONS,
  person,
  roleBinding,
  startTestServer,
  TEST_ADMIN,
  type TestServer,
} from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-ownership');
const PLUGINS = `${CONSOLE}/plugins`;
const ROLES = '/api/v1alpha1/roles';
const BINDINGS = '/api/v1alpha1/rolebindings';
const MANAGE = 'people-role-manage-persons';
const OWNER = 'plugin.svc.run/plugin-name';
const MERGE = { 'content-type': 'application/merge-patch+json' };

/** People 1.2.0: the same code, and one template more (`people-role-export-persons`). */
async function peopleWithExportTemplate(into: string): Promise<string> {
  const folder = path.join(into, 'people');
  await cp(path.join(PEOPLE_PLUGINS, 'people'), folder, {
    recursive: true,
    filter: (src) => !src.includes('node_modules'),
  });
  const manifest = path.join(folder, 'plugin.yaml');
  await writeFile(manifest, (await readFile(manifest, 'utf8')).replace(/version: 1\.0\.0/, 'version: 1.2.0'));
  const roles = path.join(folder, 'extensions/roles.yaml');
  const exportTemplate = `---
apiVersion: v1alpha1
kind: Role
metadata:
  name: people-role-export-persons
  labels:
    svc.run/role-template: "true"
rules:
  - apiGroups: ["people.svc.run"]
    resources: ["people/persons"]
    verbs: ["get", "list", "delete"]
`;
  await writeFile(roles, `${await readFile(roles, 'utf8')}${exportTemplate}`);
  return folder;
}

/**
 * A role manager squatting a plugin's template names gains nothing, in any order of events (issue 13, item 5): a
 * declared object never takes over one someone else owns, bindings go with their role, a plugin's templates change
 * only with it, and nobody but the host writes the owner label.
 */
describe.each(BACKENDS)("squatting a plugin's role names (%s)", (backend) => {
  let t: TestServer;
  let admin: Session;
  let squatter: Session;
  let scratch: string;
  const sq = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    as(t, squatter)(method, url, body, headers);
  const role = (name: string, labels: Record<string, string> = {}) => ({
    apiVersion: 'v1alpha1',
    kind: 'Role',
    metadata: { name, labels },
    rules: [],
  });
  const squat = (name: string) => sq('POST', ROLES, role(name));
  const bindSelf = (roleName: string) =>
    sq('POST', BINDINGS, roleBinding(`squatter-${roleName}`, roleName, { users: ['squatter'] }));
  const squatterMay = async (method: string, url: string) =>
    (await t.request('POST', `${CONSOLE}/accessreviews`, { method, path: url, user: 'squatter' })).body
      .allowed as boolean;
  const setEnabled = async (enable: boolean) =>
    (await t.request('PUT', `${PLUGINS}/people/plugin-state`, { enable })).body.status;
  const install = async (folder: string) => {
    const { body, headers } = multipart(await tgzOf(folder));
    return t.request('POST', `${PLUGINS}/install`, body, headers);
  };

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'svc-squat-'));
    t = await startTestServer({ backend, pluginsDirs: [] });
    admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
    squatter = await userWithRoles(t, admin, 'squatter', ['role-template-manage-roles']);
  });
  afterAll(async () => {
    await t.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('lets nobody set the owner label through the API', async () => {
    for (const send of [sq, t.request]) {
      const forged = await send('POST', ROLES, role(MANAGE, { [OWNER]: 'people' }));
      expect(forged.status).toBe(403);
      expect(forged.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(forged.body.detail).toMatch(/plugin\.svc\.run\/plugin-name .* cannot be set through the API/);
    }
  });

  it('squatted before install: the plugin fails naming the role and its owner, and the squatter gains nothing', async () => {
    expect((await squat(MANAGE)).status).toBe(201);
    expect((await bindSelf(MANAGE)).status).toBe(201);
    expect((await install(path.join(PEOPLE_PLUGINS, 'people'))).status).toBe(201);
    const status = await setEnabled(true);
    expect(status.phase).toBe('FAILED');
    expect(status.conditions[0].message).toBe(
      `extensions/roles.yaml#2 (Role "${MANAGE}"): it already exists and belongs to no plugin (it was created through ` +
        'the API); a plugin never takes over an object it did not declare',
    );
    const squatted = (await t.request('GET', `${ROLES}/${MANAGE}`)).body;
    expect(squatted.rules).toEqual([]);
    expect(squatted.metadata.labels?.[OWNER]).toBeUndefined();
    expect(await squatterMay('POST', PERSONS)).toBe(false);
  });

  it('deleting the squatted role deletes its bindings: the plugin then starts with its template unbound', async () => {
    expect((await sq('DELETE', `${ROLES}/${MANAGE}`)).status).toBe(200);
    expect((await t.request('GET', `${BINDINGS}/squatter-${MANAGE}`)).status).toBe(404);
    expect((await setEnabled(true)).phase).toBe('STARTED');
    // The failed start's declared persons went through their farewell, so this start made them afresh.
    const ada = (await t.request('GET', `${PERSONS}/ada`)).body;
    expect(ada.metadata.deletionTimestamp).toBeUndefined();
    expect(ada.metadata.finalizers).toEqual(['people.svc.run/farewell']);
    expect((await sq('POST', PERSONS, person('sq1'))).status).toBe(403);
    expect((await sq('GET', PERSONS)).status).toBe(403);
  });

  it("keeps a running plugin's objects its own: templates change only with it, owner labels stay", async () => {
    const template = (await t.request('GET', `${ROLES}/${MANAGE}`)).body;
    for (const send of [sq, t.request]) {
      const emptied = await send('PUT', `${ROLES}/${MANAGE}`, { ...template, rules: [] });
      expect(emptied.status).toBe(403);
      expect(emptied.body.detail).toBe(
        `role "${MANAGE}" is declared by plugin "people": it changes only with the plugin`,
      );
    }
    expect(
      (await t.request('PATCH', `${PERSONS}/ada`, { metadata: { labels: { [OWNER]: null } } }, MERGE)).status,
    ).toBe(403);
    expect(
      (await t.request('PATCH', `${PERSONS}/ada`, { metadata: { labels: { [OWNER]: 'squatter' } } }, MERGE)).status,
    ).toBe(403);
    expect((await t.request('PATCH', `${PERSONS}/ada`, { spec: { age: 37 } }, MERGE)).status).toBe(200);
    const kept = (await t.request('GET', `${ROLES}/${MANAGE}`)).body;
    expect(kept.rules).toEqual([
      {
        apiGroups: ['people.svc.run'],
        resources: ['people/persons'],
        verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'],
      },
    ]);
    expect(kept.metadata.labels[OWNER]).toBe('people');
  });

  it('while it is stopped, a name its bindings wait on is not for a user to take; they take effect again on start', async () => {
    const viewer = await userWithRoles(t, admin, 'viewer', ['people-role-view-persons']);
    expect((await setEnabled(false)).phase).toBe('STOPPED');
    const taken = await squat('people-role-view-persons');
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toMatch(
      /^role "people-role-view-persons" is still named by RoleBindings viewer-people-role-view-persons-/,
    );
    expect((await setEnabled(true)).phase).toBe('STARTED');
    expect((await as(t, viewer)('GET', PERSONS)).status).toBe(200);
  });

  it('a role depending on a template name that has no role yet is refused, before install or while stopped', async () => {
    const dependent = {
      ...role('my-people'),
      metadata: { name: 'my-people', annotations: { 'rbac.authorization.svc.run/dependencies': `["${MANAGE}"]` } },
    };
    expect((await setEnabled(false)).phase).toBe('STOPPED');
    const refused = await sq('POST', ROLES, dependent);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(
      `Role "my-people" depends on roles that do not exist: ${MANAGE}; a dependency must name an existing role`,
    );
    expect((await setEnabled(true)).phase).toBe('STARTED');
    expect(await squatterMay('POST', PERSONS)).toBe(false);
  });

  it('squat, bind and delete while it is stopped: the template starts unbound', async () => {
    expect((await setEnabled(false)).phase).toBe('STOPPED');
    expect((await squat(MANAGE)).status).toBe(201);
    expect((await bindSelf(MANAGE)).status).toBe(201);
    expect((await sq('DELETE', `${ROLES}/${MANAGE}`)).status).toBe(200);
    expect((await t.request('GET', `${BINDINGS}/squatter-${MANAGE}`)).status).toBe(404);
    expect((await setEnabled(true)).phase).toBe('STARTED');
    expect((await sq('POST', PERSONS, person('sq2'))).status).toBe(403);
    expect(await squatterMay('DELETE', `${PERSONS}/ada`)).toBe(false);
  });

  it('squat, depend on it, bind and delete while it is stopped: the dependency goes with the role', async () => {
    expect((await setEnabled(false)).phase).toBe('STOPPED');
    expect((await squat(MANAGE)).status).toBe(201);
    const dependent = {
      ...role('my-people'),
      metadata: { name: 'my-people', annotations: { 'rbac.authorization.svc.run/dependencies': `["${MANAGE}"]` } },
    };
    expect((await sq('POST', ROLES, dependent)).status).toBe(201);
    expect((await bindSelf('my-people')).status).toBe(201);
    expect((await sq('DELETE', `${ROLES}/${MANAGE}`)).status).toBe(200);
    expect((await t.request('GET', `${ROLES}/my-people`)).body.metadata.annotations ?? {}).toEqual({});
    expect((await setEnabled(true)).phase).toBe('STARTED');
    expect((await sq('POST', PERSONS, person('sq3'))).status).toBe(403);
    expect(await squatterMay('DELETE', `${PERSONS}/ada`)).toBe(false);
  });

  it('a template an upgrade adds, squatted before the upgrade: the upgrade is rolled back, naming it', async () => {
    expect((await squat('people-role-export-persons')).status).toBe(201);
    expect((await bindSelf('people-role-export-persons')).status).toBe(201);
    const archive = await tgzOf(await peopleWithExportTemplate(scratch));
    const upgrade = () => {
      const { body, headers } = multipart(archive);
      return t.request('POST', `${PLUGINS}/people/upgrade`, body, headers);
    };
    const upgraded = await upgrade();
    expect(upgraded.status, upgraded.text).toBe(200);
    // The version before the upgrade runs again; the refused one and why are in status.
    expect(upgraded.body.status).toMatchObject({ phase: 'STARTED', version: '1.0.0' });
    expect(upgraded.body.status.lastUpgrade).toMatchObject({ version: '1.2.0', reason: 'UpgradeRolledBack' });
    expect(upgraded.body.status.lastUpgrade.message).toMatch(
      /^extensions\/roles\.yaml#\d+ \(Role "people-role-export-persons"\): it already exists and belongs to no plugin/,
    );
    expect((await t.request('GET', `${ROLES}/people-role-export-persons`)).body.rules).toEqual([]);
    expect(await squatterMay('DELETE', `${PERSONS}/ada`)).toBe(false);
    // Once the squatted role is gone (with its binding), the same upgrade goes through and the squatter holds nothing.
    expect((await sq('DELETE', `${ROLES}/people-role-export-persons`)).status).toBe(200);
    const again = await upgrade();
    expect(again.body.status).toMatchObject({ phase: 'STARTED', version: '1.2.0' });
    expect(again.body.status.lastUpgrade).toBeUndefined();
    expect((await t.request('GET', `${ROLES}/people-role-export-persons`)).body.metadata.labels[OWNER]).toBe('people');
    expect((await sq('DELETE', `${PERSONS}/ada`)).status).toBe(403);
  });

  it("a plugin's extensions never take over an administrator's role of the same name", async () => {
    const rules = [{ apiGroups: [''], resources: ['roles'], verbs: ['get'] }];
    expect((await t.request('POST', ROLES, { ...role('ops'), rules })).status).toBe(201);
    expect((await install(path.join(FIXTURES, 'takeover'))).status).toBe(201);
    const status = (await t.request('PUT', `${PLUGINS}/takeover/plugin-state`, { enable: true })).body.status;
    expect(status.phase).toBe('FAILED');
    expect(status.conditions[0].message).toMatch(
      /^extensions\/roles\.yaml#1 \(Role "ops"\): it already exists and belongs to no plugin/,
    );
    const ops = (await t.request('GET', `${ROLES}/ops`)).body;
    expect(ops.rules).toEqual(rules);
    expect(ops.metadata.labels?.[OWNER]).toBeUndefined();
  });
});
