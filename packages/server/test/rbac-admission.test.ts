import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createServer } from '../src/main.js';
import type { Actor } from '../src/registry/admission.js';
import type { ServedModel } from '../src/registry/model-registry.js';
import { PEOPLE_PLUGINS, roleBinding, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';

/** Role and RoleBinding rules, through the real object service and store, with the writer named explicitly. */
describe('role and binding admission', () => {
  let t: TestServer;
  let roles: ServedModel;
  let bindings: ServedModel;
  const user = (username: string): Actor => ({ kind: 'user', principal: { username, via: 'session' } });
  const role = (
    name: string,
    rules: object[],
    labels: Record<string, string> = {},
    annotations: Record<string, string> = {},
  ) => ({
    apiVersion: 'v1alpha1',
    kind: 'Role',
    metadata: { name, labels, annotations },
    rules,
  });
  const status = (p: Promise<unknown>) =>
    p.then(
      () => 200,
      (e: { status?: number }) => e.status ?? 500,
    );

  beforeAll(async () => {
    t = await startTestServer();
    roles = t.server.registry.findByRoute('', 'v1alpha1', 'roles')!;
    bindings = t.server.registry.findByRoute('', 'v1alpha1', 'rolebindings')!;
    // "viewer" holds the users view template only.
    await t.server.objects.create(
      bindings,
      roleBinding('viewer-view-users', 'role-template-view-users', { users: ['viewer'] }),
    );
  });
  afterAll(() => t.close());

  it('serves the built-in roles and core templates', async () => {
    const names = (await t.server.objects.list(roles, { labels: [], fields: [], sort: [] })).items.map(
      (b) => JSON.parse(b.toString()).metadata.name,
    );
    for (const name of [
      'super-role',
      'anonymous',
      'authenticated',
      'guest',
      'contributor',
      'author',
      'editor',
      'role-template-view-users',
      'role-template-manage-posts',
    ]) {
      expect(names).toContain(name);
    }
    const editor = await t.server.objects.get(roles, 'editor');
    expect(editor.metadata.annotations?.['rbac.authorization.svc.run/display-name']).toBe('Post manager');
  });

  it('refuses to edit or delete a built-in role through the API', async () => {
    const superRole = await t.server.objects.get(roles, 'super-role');
    expect(await status(t.server.objects.update(roles, 'super-role', superRole, { actor: user('viewer') }))).toBe(403);
    expect(await status(t.server.objects.delete(roles, 'anonymous', { actor: user('viewer') }))).toBe(403);
  });

  it('refuses a role with rules the writer does not hold, and accepts one within them', async () => {
    const everything = role('grab-all', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]);
    expect(await status(t.server.objects.create(roles, everything, { actor: user('viewer') }))).toBe(403);
    const subset = role('read-users', [{ apiGroups: [''], resources: ['users'], verbs: ['get'] }]);
    expect(await status(t.server.objects.create(roles, subset, { actor: user('viewer') }))).toBe(200);
  });

  it('refuses a role that would pull in more through dependencies', async () => {
    const sneaky = role('sneaky', [], {}, { 'rbac.authorization.svc.run/dependencies': '["super-role"]' });
    expect(await status(t.server.objects.create(roles, sneaky, { actor: user('viewer') }))).toBe(403);
  });

  it('refuses aggregation into super-role, even for a plugin', async () => {
    const template = role('plug-role', [], { 'rbac.authorization.svc.run/aggregate-to-super-role': 'true' });
    expect(await status(t.server.objects.create(roles, template, { actor: { kind: 'plugin', plugin: 'plug' } }))).toBe(
      403,
    );
  });

  it('refuses malformed role annotations', async () => {
    const broken = role('broken', [], {}, { 'rbac.authorization.svc.run/dependencies': 'not json' });
    expect(await status(t.server.objects.create(roles, broken))).toBe(400);
  });

  it('refuses a binding to a role that does not exist, and binding a role the writer lacks', async () => {
    expect(
      await status(t.server.objects.create(bindings, roleBinding('ghost', 'no-such-role', { users: ['x'] }))),
    ).toBe(400);
    expect(
      await status(
        t.server.objects.create(bindings, roleBinding('grant-super', 'super-role', { users: ['viewer'] }), {
          actor: user('viewer'),
        }),
      ),
    ).toBe(403);
    expect(
      await status(
        t.server.objects.create(
          bindings,
          roleBinding('grant-view', 'role-template-view-users', { users: ['friend'] }),
          {
            actor: user('viewer'),
          },
        ),
      ),
    ).toBe(200);
  });
});

describe('built-in roles at boot', () => {
  it('restores a tampered built-in role at the next start', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-restore-'));
    const start = () =>
      createServer(
        loadConfig({ SVC_DATA_DIR: dataDir, SVC_PLUGINS_DIR: PEOPLE_PLUGINS, SVC_ADMIN_PASSWORD: TEST_ADMIN.password }),
        {
          logger: pino({ level: 'silent' }),
        },
      );
    const rulesOfEditor = async (server: Awaited<ReturnType<typeof start>>) => {
      const served = server.registry.findByRoute('', 'v1alpha1', 'roles')!;
      return JSON.stringify(((await server.objects.get(served, 'editor')) as { rules?: unknown }).rules);
    };
    try {
      const first = await start();
      const original = await rulesOfEditor(first);
      const served = first.registry.findByRoute('', 'v1alpha1', 'roles')!;
      const editor = await first.objects.get(served, 'editor');
      // Only the service itself may write it (as a direct edit of the database would): widen it.
      await first.objects.update(served, 'editor', {
        ...editor,
        rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
      });
      expect(await rulesOfEditor(first)).not.toBe(original);
      await first.close();
      const second = await start();
      expect(await rulesOfEditor(second)).toBe(original);
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
