import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, CONSOLE, login, type Session } from './auth-harness.js';
import { BACKENDS, roleBinding, startTestServer, type TestServer } from './harness.js';
import { NOTES, NOTES_PLUGINS, note, watchHttp } from './watch-client.js';

const ROLES = '/api/v1alpha1/roles';
const BINDINGS = '/api/v1alpha1/rolebindings';
const USERS = '/api/v1alpha1/users';
const ACCESS_REVIEWS = `${CONSOLE}/accessreviews`;
const merge = { 'content-type': 'application/merge-patch+json' };

/**
 * RoleBindings to groups, for local users whose groups an administrator sets (User `spec.groups`): the gate, access
 * review and open watches follow the groups; only a super administrator may set them.
 */
describe.each(BACKENDS)('groups as subjects (%s)', (backend) => {
  let t: TestServer;
  let base: string;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [NOTES_PLUGINS] });
    base = await t.server.listen();
    const role = await t.request('POST', ROLES, {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'notes-watcher' },
      rules: [{ apiGroups: ['notes.svc.run'], resources: ['notes'], verbs: ['get', 'list', 'watch'] }],
    });
    expect(role.status).toBe(201);
    const binding = await t.request(
      'POST',
      BINDINGS,
      roleBinding('team-watches-notes', 'notes-watcher', { groups: ['team'] }),
    );
    expect(binding.status).toBe(201);
  }, 60_000);
  afterAll(() => t?.close());

  async function user(name: string, roles: string[] = []): Promise<Session> {
    const password = `${name}-password-123`;
    expect((await t.request('POST', `${CONSOLE}/users`, { name, password, roles })).status).toBe(201);
    return login(t, name, password);
  }
  const setGroups = (name: string, groups: string[] | null, session?: Session) =>
    (session ? as(t, session) : t.request)('PATCH', `${USERS}/${name}`, { spec: { groups } }, merge);

  it('grants a user what is bound to a group an administrator put them in', async () => {
    const ann = await user('ann');
    expect((await as(t, ann)('GET', NOTES)).status).toBe(403);
    expect((await setGroups('ann', ['team'])).status).toBe(200);
    expect((await as(t, ann)('GET', NOTES)).status).toBe(200);
    const review = await t.request('POST', ACCESS_REVIEWS, { method: 'GET', path: NOTES, user: 'ann' });
    expect(review.body).toMatchObject({ user: 'ann', allowed: true, role: 'notes-watcher' });
    // The console's user list shows the groups and what they bring.
    const listed = await t.request('GET', `${CONSOLE}/users?keyword=ann`);
    expect(listed.body.items[0]).toMatchObject({
      roles: [],
      groups: ['team'],
      groupRoles: [{ name: 'notes-watcher', group: 'team' }],
    });
    expect((await setGroups('ann', null)).status).toBe(200);
    expect((await as(t, ann)('GET', NOTES)).status).toBe(403);
  });

  it('refuses a RoleBinding subject of another kind', async () => {
    const bad = await t.request('POST', BINDINGS, {
      apiVersion: 'v1alpha1',
      kind: 'RoleBinding',
      metadata: { name: 'bad-subject' },
      roleRef: { apiGroup: '', kind: 'Role', name: 'notes-watcher' },
      subjects: [{ apiGroup: '', kind: 'ServiceAccount', name: 'x' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('subjects');
  });

  it('lets only a super administrator set groups', async () => {
    const editor = await t.request('POST', ROLES, {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'user-editor' },
      rules: [{ apiGroups: [''], resources: ['users'], verbs: ['get', 'list', 'update', 'patch'] }],
    });
    expect(editor.status).toBe(201);
    const manager = await user('manager', ['user-editor']);
    await user('cody');
    const refused = await setGroups('cody', ['team'], manager);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('only a super administrator may set the groups of user "cody" (spec.groups)');
    // Other fields stay theirs to change.
    expect((await as(t, manager)('PATCH', `${USERS}/cody`, { spec: { displayName: 'Cody' } }, merge)).status).toBe(200);
    const refusedSelf = await setGroups('manager', ['team'], manager);
    expect(refusedSelf.status).toBe(403);
  });

  it('ends a watch with 403 when the user leaves the group that allowed it', async () => {
    const dana = await user('dana');
    expect((await setGroups('dana', ['team'])).status).toBe(200);
    const revision = (await t.request('GET', NOTES)).body.metadata.resourceVersion;
    const watch = watchHttp(base, `${NOTES}?watch=true&resourceVersion=${revision}`, { headers: dana.headers });
    expect((await t.request('POST', NOTES, note('seen-by-dana'))).status).toBe(201);
    await watch.until((events) => events.some((e) => e.object.metadata?.name === 'seen-by-dana'), 'seen-by-dana');
    expect((await setGroups('dana', [])).status).toBe(200);
    await watch.until(() => watch.isEnded(), 'the watch to end', 10_000);
    expect(watch.events.at(-1)).toMatchObject({ type: 'ERROR', object: { code: 403, reason: 'Forbidden' } });
    expect(watch.events.at(-1)!.object.message).toMatch(/^user "dana" may no longer watch this/);
  });
});
