/**
 * `dryRun` on every write route (issue 28, item 1): a route either honours it (validates and answers, stores nothing)
 * or refuses it with a 400 naming the parameter before its handler runs; never a real write. The table below holds
 * the decision for every core write route the router serves: a new route without a decision fails the first test.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, PEOPLE_PLUGINS, PERSONS, person, REPO, startTestServer, type TestServer } from './harness.js';

const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const UC_POSTS = '/apis/uc.api.content.svc.run/v1alpha1/posts';
const TALLY = '/apis/api.tally.svc.run/v1';
const PROBLEM = 'application/problem+json';
const DRY_RUN_FIXTURES = path.join(REPO, 'packages/server/test/fixtures/plugins-dry-run');

/** Every core write route of the router, with what it does with `dryRun=All`. */
const DECISIONS: Record<string, 'honours' | 'refuses'> = {
  // The generated routes of every model: the object service validates, admits and answers without storing.
  'POST /apis/:group/:version/:plural': 'honours',
  'DELETE /apis/:group/:version/:plural': 'honours',
  'PUT /apis/:group/:version/:plural/:name': 'honours',
  'PATCH /apis/:group/:version/:plural/:name': 'honours',
  'DELETE /apis/:group/:version/:plural/:name': 'honours',
  'PUT /apis/:group/:version/:plural/:name/:subresource': 'honours',
  'PATCH /apis/:group/:version/:plural/:name/:subresource': 'honours',
  'POST /api/:version/:plural': 'honours',
  'DELETE /api/:version/:plural': 'honours',
  'PUT /api/:version/:plural/:name': 'honours',
  'PATCH /api/:version/:plural/:name': 'honours',
  'DELETE /api/:version/:plural/:name': 'honours',
  'PUT /api/:version/:plural/:name/:subresource': 'honours',
  'PATCH /api/:version/:plural/:name/:subresource': 'honours',
  // A user's own posts: every write goes through the object service with the request's options.
  [`POST ${UC_POSTS}`]: 'honours',
  [`PUT ${UC_POSTS}/:name`]: 'honours',
  [`DELETE ${UC_POSTS}/:name`]: 'honours',
  [`PUT ${UC_POSTS}/:name/publish`]: 'honours',
  [`PUT ${UC_POSTS}/:name/unpublish`]: 'honours',
  // Questions that write nothing.
  [`POST ${CONSOLE}/effectivepermissions`]: 'honours',
  [`POST ${CONSOLE}/accessreviews`]: 'honours',
  'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews': 'honours',
  'POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews': 'honours',
  'POST /apis/authentication.k8s.io/v1/selfsubjectreviews': 'honours',
  // Writes beside the object service (passwords, sessions, tokens, bindings, plugin code and state): refused.
  [`POST ${CONSOLE}/setup`]: 'refuses',
  [`POST ${CONSOLE}/users`]: 'refuses',
  [`PUT ${CONSOLE}/users/-/password`]: 'refuses',
  [`PUT ${CONSOLE}/users/:name/password`]: 'refuses',
  [`POST ${CONSOLE}/users/:name/permissions`]: 'refuses',
  [`POST ${TOKENS}`]: 'refuses',
  [`PUT ${TOKENS}/:name/revocation`]: 'refuses',
  [`DELETE ${TOKENS}/:name`]: 'refuses',
  [`POST ${CONSOLE}/plugins/install`]: 'refuses',
  [`POST ${CONSOLE}/plugins/:name/upgrade`]: 'refuses',
  [`PUT ${CONSOLE}/plugins/:name/plugin-state`]: 'refuses',
};

/** A 400 problem that names the parameter and says nothing was done. */
function expectRefused(response: { status: number; headers: Record<string, unknown>; body: any }, where: string) {
  expect(response.status).toBe(400);
  expect(response.headers['content-type']).toContain(PROBLEM);
  expect(response.body.detail).toContain(`${where} is not supported by`);
  expect(response.body.detail).toContain('nothing was done');
}

describe.each(BACKENDS)('dry runs on write routes (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;
  let dora: Session;
  const request = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    as(t, admin)(method, url, body, headers);

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [PEOPLE_PLUGINS, DRY_RUN_FIXTURES] });
    admin = await login(t, ADMIN.username, ADMIN.password);
    dora = await userWithRoles(t, admin, 'dora', ['author']);
  }, 60_000);
  afterAll(() => t?.close());

  it('has a decision for every core write route, and refuses where it does not honour', async () => {
    const writes = t.server.router
      .list()
      .filter((route) => route.owner === 'core' && route.method !== 'GET' && route.method !== 'HEAD');
    expect(writes.map((route) => `${route.method} ${route.path}`).sort()).toEqual(Object.keys(DECISIONS).sort());
    for (const route of writes) {
      const decision = DECISIONS[`${route.method} ${route.path}`];
      expect({ route: `${route.method} ${route.path}`, honours: route.dryRun === true }).toEqual({
        route: `${route.method} ${route.path}`,
        honours: decision === 'honours',
      });
      if (decision !== 'refuses') continue;
      const url = `${route.path.replaceAll(':name', 'dora')}?dryRun=All`;
      expectRefused(await request(route.method, url, {}), 'the query parameter dryRun');
    }
  });

  it('refuses a dry run of sign-in and sign-out, the routes outside the router', async () => {
    const signIn = await as(t, undefined)('POST', '/login?dryRun=All', { username: 'dora', password: 'whatever' });
    expectRefused(signIn, 'the query parameter dryRun');
    expectRefused(await as(t, dora)('POST', '/logout?dryRun=All'), 'the query parameter dryRun');
    expect((await as(t, dora)('GET', `${CONSOLE}/users/-`)).status).toBe(200);
  });

  it('creates no user', async () => {
    const created = await request('POST', `${CONSOLE}/users?dryRun=All`, { name: 'eve', password: 'eve password' });
    expectRefused(created, 'the query parameter dryRun');
    expect((await request('GET', '/api/v1alpha1/users/eve')).status).toBe(404);
  });

  it("resets no password: the old one still signs in and the user's session lives on", async () => {
    const reset = await request('PUT', `${CONSOLE}/users/dora/password?dryRun=All`, { password: 'another password' });
    expectRefused(reset, 'the query parameter dryRun');
    expect((await as(t, dora)('GET', `${CONSOLE}/users/-`)).status).toBe(200);
    await login(t, 'dora', 'dora-password-123');
  });

  it('sets no roles', async () => {
    const set = await request('POST', `${CONSOLE}/users/dora/permissions?dryRun=All`, { roles: ['editor'] });
    expectRefused(set, 'the query parameter dryRun');
    expect((await request('GET', `${CONSOLE}/users/dora/permissions`)).body.roles).toEqual(['author']);
    expect((await as(t, dora)('GET', `${CONSOLE}/users/-`)).status).toBe(200);
  });

  it('mints no token, and revokes or deletes none, whether asked in the query or in DeleteOptions', async () => {
    const minted = await as(t, dora)('POST', `${TOKENS}?dryRun=All`, { spec: { name: 'ci', roles: ['author'] } });
    expectRefused(minted, 'the query parameter dryRun');
    expect((await as(t, dora)('GET', TOKENS)).body.items).toEqual([]);
    const made = await as(t, dora)('POST', TOKENS, { spec: { name: 'kept', roles: ['author'] } });
    expect(made.status).toBe(201);
    const name = made.body.metadata.name as string;
    const revoked = await as(t, dora)('PUT', `${TOKENS}/${name}/revocation?dryRun=All`);
    expectRefused(revoked, 'the query parameter dryRun');
    const deleted = await as(t, dora)('DELETE', `${TOKENS}/${name}`, { kind: 'DeleteOptions', dryRun: ['All'] });
    expectRefused(deleted, 'DeleteOptions dryRun');
    const kept = await as(t, dora)('GET', `${TOKENS}/${name}`);
    expect(kept.status).toBe(200);
    expect(kept.body.spec.revoked).not.toBe(true);
    expect(kept.body.spec.revokedAt).toBeUndefined();
  });

  it('neither stops nor starts a plugin', async () => {
    const stop = await request('PUT', `${CONSOLE}/plugins/people/plugin-state?dryRun=All`, { enable: false });
    expectRefused(stop, 'the query parameter dryRun');
    expect((await request('GET', `${CONSOLE}/plugins/people`)).body.status.phase).toBe('STARTED');
    expect((await request('GET', PERSONS)).status).toBe(200);
  });

  it("answers a user's post writes as they would be, and stores none of them", async () => {
    const post = { metadata: { name: 'draft' }, spec: { title: 'A draft', content: 'Words.' } };
    const tried = await as(t, dora)('POST', `${UC_POSTS}?dryRun=All`, post);
    expect(tried.status).toBe(201);
    expect(tried.body).toMatchObject({ metadata: { name: 'draft' }, spec: { owner: 'dora', published: false } });
    expect((await as(t, dora)('GET', `${UC_POSTS}/draft`)).status).toBe(404);

    expect((await as(t, dora)('POST', UC_POSTS, post)).status).toBe(201);
    const published = await as(t, dora)('PUT', `${UC_POSTS}/draft/publish?dryRun=All`);
    expect(published.status).toBe(200);
    expect(published.body.spec.published).toBe(true);
    expect((await as(t, dora)('GET', `${UC_POSTS}/draft`)).body.spec.published).toBe(false);
    const deleted = await as(t, dora)('DELETE', `${UC_POSTS}/draft?dryRun=All`);
    expect(deleted.status).toBe(200);
    expect((await as(t, dora)('GET', `${UC_POSTS}/draft`)).status).toBe(200);
    // A value other than All is a 400, as on every route that honours dry runs.
    const wrongValue = await as(t, dora)('DELETE', `${UC_POSTS}/draft?dryRun=yes`);
    expect(wrongValue.status).toBe(400);
    expect(wrongValue.body.detail).toContain('the query parameter dryRun may only be "All"');
  });

  it('documents dryRun in the OpenAPI document of the routes that honour it only', async () => {
    const parametersOf = async (groupVersion: string, path: string, method: string) => {
      const doc = (await t.anonymous('GET', `/openapi/v3/apis/${groupVersion}`)).body;
      return (doc.paths[path][method].parameters ?? []).map((p: { name: string; in: string }) => `${p.in} ${p.name}`);
    };
    const content = 'uc.api.content.svc.run/v1alpha1';
    expect(await parametersOf(content, UC_POSTS, 'post')).toEqual(['query dryRun']);
    expect(await parametersOf(content, `${UC_POSTS}/{name}`, 'delete')).toEqual(['path name', 'query dryRun']);
    expect(await parametersOf(content, `${UC_POSTS}/{name}`, 'get')).toEqual(['path name']);
    expect(await parametersOf('api.console.svc.run/v1alpha1', `${CONSOLE}/users`, 'post')).toEqual([]);
  });

  it("answers a question route's dry run as the question itself", async () => {
    const question = { roles: ['guest'] };
    const real = await request('POST', `${CONSOLE}/effectivepermissions`, question);
    const tried = await request('POST', `${CONSOLE}/effectivepermissions?dryRun=All`, question);
    expect(tried.status).toBe(200);
    expect(tried.body).toEqual(real.body);
  });

  it("refuses a dry run on a plugin's route that does not declare it, and hands it to one that does", async () => {
    // The people plugin's own-persons route declares nothing: refused, nothing created.
    const own = await request('POST', '/apis/uc.api.people.svc.run/v1alpha1/persons?dryRun=All', person('tried'));
    expectRefused(own, 'the query parameter dryRun');
    expect((await request('GET', `${PERSONS}/tried`)).status).toBe(404);

    expectRefused(await request('POST', `${TALLY}/count?dryRun=All`), 'the query parameter dryRun');
    expect((await request('GET', `${TALLY}/count`)).body).toEqual({ count: 0 });
    const tried = await request('POST', `${TALLY}/tried?dryRun=All`);
    expect(tried.status).toBe(200);
    expect(tried.body).toEqual({ count: 1, dryRun: true });
    const triedDelete = await request('DELETE', `${TALLY}/tried`, { dryRun: ['All'] });
    expect(triedDelete.body).toEqual({ count: 1, dryRun: true });
    expect((await request('GET', `${TALLY}/count`)).body).toEqual({ count: 0 });
    expect((await request('POST', `${TALLY}/tried`)).body).toEqual({ count: 1, dryRun: false });
    expect((await request('POST', `${TALLY}/tried?dryRun=maybe`)).status).toBe(400);
  });
});
