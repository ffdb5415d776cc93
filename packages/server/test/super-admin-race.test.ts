import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';

const USERS = '/api/v1alpha1/users';
const BINDINGS = '/api/v1alpha1/rolebindings';
const MERGE = { 'content-type': 'application/merge-patch+json' };

/**
 * The service always keeps an enabled super administrator, also when two writes that would each leave one arrive
 * together: a write about to take super-role from someone counts them as gone until it has settled.
 */
describe.each(BACKENDS)('the last super administrator under concurrent writes (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    admin = await login(t, ADMIN.username, ADMIN.password);
  }, 60_000);
  afterAll(() => t.close());

  it('lets only one of two super administrators disabling each other at once succeed', async () => {
    // Each round: exactly two enabled super administrators race to disable each other; the survivor makes the next.
    let survivor = admin;
    for (let round = 0; round < 5; round++) {
      const other = await userWithRoles(t, survivor, `second-${backend}-${round}`, ['super-role']);
      const pair = [survivor, other] as const;
      const both = await Promise.all([
        as(t, pair[0])('PATCH', `${USERS}/${pair[1].username}`, { spec: { disabled: true } }, MERGE),
        as(t, pair[1])('PATCH', `${USERS}/${pair[0].username}`, { spec: { disabled: true } }, MERGE),
      ]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(both.find((r) => r.status === 409)!.body.detail).toContain('is the last enabled holder of super-role');
      survivor = both[0]!.status === 200 ? pair[0] : pair[1];
      const loser = survivor === pair[0] ? pair[1] : pair[0];
      expect([t.server.authn.users.isActive(survivor.username), t.server.authn.users.isActive(loser.username)]).toEqual(
        [true, false],
      );
    }
    admin = survivor;
  });

  it('lets only one of a disable and a binding removal that would each leave one super administrator succeed', async () => {
    const third = await userWithRoles(t, admin, `third-${backend}`, ['super-role']);
    const bindings = await as(t, admin)('GET', BINDINGS);
    const thirds = bindings.body.items.find((b: { subjects?: Array<{ name: string }> }) =>
      b.subjects?.some((s) => s.name === `third-${backend}`),
    );
    const results = await Promise.all([
      as(t, third)('PATCH', `${USERS}/${admin.username}`, { spec: { disabled: true } }, MERGE),
      as(t, admin)('DELETE', `${BINDINGS}/${thirds.metadata.name}`),
    ]);
    // One of them goes first; the other is refused: 409 when both were checked at once, 403 when the binding went
    // first and took the third user's power to disable anyone.
    const [disabling, unbinding] = results;
    expect([disabling!.status, unbinding!.status].filter((status) => status === 200)).toHaveLength(1);
    if (unbinding!.status === 200) {
      expect([403, 409]).toContain(disabling!.status);
      expect(t.server.authn.users.isActive(admin.username)).toBe(true);
    } else {
      expect(unbinding!.status).toBe(409);
      expect(unbinding!.body.detail).toContain('would lose super-role');
      // The administrator is disabled now; the third user, still a super administrator, finds the binding kept.
      expect(t.server.authn.users.isActive(admin.username)).toBe(false);
      expect((await as(t, third)('GET', `${BINDINGS}/${thirds.metadata.name}`)).status).toBe(200);
    }
  });
});
