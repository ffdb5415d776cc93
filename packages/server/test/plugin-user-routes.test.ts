import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';

const OWN = '/apis/uc.api.people.svc.run/v1alpha1/persons';

/**
 * A plugin's handler knows who called it (RouteRequest.user, filled from the principal the gate authorized): the
 * people plugin's personal-center routes list and create "the persons I own" (issue 14, "one of each").
 */
describe.each(BACKENDS)('a plugin route knows its caller (%s)', (backend) => {
  let t: TestServer;
  let uma: Session;
  let vic: Session;
  let plain: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend });
    const admin = await login(t, ADMIN.username, ADMIN.password);
    uma = await userWithRoles(t, admin, 'uma', ['people-role-manage-own-persons']);
    vic = await userWithRoles(t, admin, 'vic', ['people-role-manage-own-persons']);
    plain = await userWithRoles(t, admin, 'plain', []);
    const someoneElses = person('zed-own', {}, { 'people.svc.run/owner': 'zed' });
    expect((await t.request('POST', PERSONS, someoneElses)).status).toBe(201);
  }, 60_000);
  afterAll(() => t.close());

  it('creates a person owned by the caller, whatever owner the body names', async () => {
    const body = {
      metadata: { name: 'uma-1', labels: { 'people.svc.run/owner': 'vic' } },
      spec: { name: 'Uma One', age: 30 },
    };
    const created = await as(t, uma)('POST', OWN, body);
    expect(created.status).toBe(201);
    expect(created.body.metadata.labels).toEqual({ 'people.svc.run/owner': 'uma' });
    expect((await as(t, vic)('POST', OWN, { metadata: { name: 'vic-1' }, spec: { name: 'Vic One' } })).status).toBe(
      201,
    );
  });

  it("lists only the caller's own persons", async () => {
    const own = await as(t, uma)('GET', OWN);
    expect(own.status).toBe(200);
    expect(own.body.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['uma-1']);
    expect(own.body.total).toBe(1);
    const vics = await as(t, vic)('GET', OWN);
    expect(vics.body.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['vic-1']);
  });

  it('is closed to callers without the template: 401 anonymous, 403 signed in', async () => {
    expect((await as(t, undefined)('GET', OWN)).status).toBe(401);
    expect((await as(t, plain)('GET', OWN)).status).toBe(403);
  });
});
