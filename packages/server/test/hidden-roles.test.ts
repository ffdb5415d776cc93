import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const ROLES = '/api/v1alpha1/roles';
const HIDDEN = 'svc.run/hidden';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-grants');

const role = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1alpha1',
  kind: 'Role',
  metadata: { name, labels: { 'svc.run/role-template': 'true', ...labels } },
  rules: [{ apiGroups: [''], resources: ['roles'], verbs: ['get'] }],
});

/**
 * Issue 28, item 4: `svc.run/hidden` keeps a role off the Roles page and out of the role picker. Only a plugin's
 * declared templates and super administrators may set it; a role writer who could would hide what they granted.
 */
describe.each(BACKENDS)('who may hide a role (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;
  let writer: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    admin = await login(t, ADMIN.username, ADMIN.password);
    writer = await userWithRoles(t, admin, 'writer', ['role-template-manage-roles']);
  }, 60_000);
  afterAll(() => t.close());

  it("refuses a role writer's create with the label (403 naming it); nothing is stored", async () => {
    const made = await as(t, writer)('POST', ROLES, role('quiet', { [HIDDEN]: 'true' }));
    expect(made.status).toBe(403);
    expect(made.headers['content-type']).toContain('application/problem+json');
    expect(made.body.detail).toContain(`label ${HIDDEN}`);
    expect((await as(t, admin)('GET', `${ROLES}/quiet`)).status).toBe(404);
  });

  it("refuses a role writer's update or patch that adds or changes it; the role is unchanged", async () => {
    const made = await as(t, writer)('POST', ROLES, role('plain'));
    expect(made.status).toBe(201);
    const put = await as(t, writer)('PUT', `${ROLES}/plain`, {
      ...made.body,
      metadata: { ...made.body.metadata, labels: { ...made.body.metadata.labels, [HIDDEN]: 'true' } },
    });
    expect(put.status).toBe(403);
    expect(put.body.detail).toContain(`label ${HIDDEN}`);
    const patched = await as(t, writer)(
      'PATCH',
      `${ROLES}/plain`,
      { metadata: { labels: { [HIDDEN]: 'yes' } } },
      MERGE,
    );
    expect(patched.status).toBe(403);
    const stored = await as(t, admin)('GET', `${ROLES}/plain`);
    expect(stored.body.metadata.labels[HIDDEN]).toBeUndefined();
    expect(stored.body.metadata.version).toBe(made.body.metadata.version);
  });

  it('lets a super administrator hide a role; a role writer may then edit it as it is, or unhide it', async () => {
    const made = await as(t, admin)('POST', ROLES, role('admins-quiet', { [HIDDEN]: 'true' }));
    expect(made.status).toBe(201);
    expect(made.body.metadata.labels[HIDDEN]).toBe('true');
    const edited = await as(t, writer)(
      'PATCH',
      `${ROLES}/admins-quiet`,
      { metadata: { annotations: { 'rbac.authorization.svc.run/display-name': 'Quiet' } } },
      MERGE,
    );
    expect(edited.status).toBe(200);
    expect(edited.body.metadata.labels[HIDDEN]).toBe('true');
    const changed = await as(t, writer)(
      'PATCH',
      `${ROLES}/admins-quiet`,
      { metadata: { labels: { [HIDDEN]: 'false' } } },
      MERGE,
    );
    expect(changed.status).toBe(403);
    const shown = await as(t, writer)(
      'PATCH',
      `${ROLES}/admins-quiet`,
      { metadata: { labels: { [HIDDEN]: null } } },
      MERGE,
    );
    expect(shown.status).toBe(200);
    expect(shown.body.metadata.labels[HIDDEN]).toBeUndefined();
  });

  it("keeps a plugin's declared template hidden", async () => {
    const { body, headers } = multipart(await tgzOf(path.join(FIXTURES, 'grants-hidden')));
    expect((await as(t, admin)('POST', `${CONSOLE}/plugins/install`, body, headers)).status).toBe(201);
    const started = await as(t, admin)('PUT', `${CONSOLE}/plugins/grants-hidden/plugin-state`, { enable: true });
    expect(started.body.status.phase).toBe('STARTED');
    const declared = await as(t, admin)('GET', `${ROLES}/grants-hidden-role-internal`);
    expect(declared.body.metadata.labels[HIDDEN]).toBe('true');
  });
});
