import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';
import { type RawResponse, rawBytes, rawRequest } from './raw-http.js';

/**
 * The gate and the router read one parsed request (issue 13, item 3), and the framework's own refusals are
 * problem+json (item 7). Every request here goes over a real socket with its target exactly as written.
 */
describe.each(BACKENDS)('one reading of each request target (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  let admin: Session;
  let getDelete: Session;
  let statusOnly: Session;

  const role = (name: string, resources: string[], verbs: string[]) => ({
    apiVersion: 'v1alpha1',
    kind: 'Role',
    metadata: { name },
    rules: [{ apiGroups: ['people.svc.run'], resources, verbs }],
  });
  const send = (
    session: Session | undefined,
    method: string,
    target: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    rawRequest(base, method, target, {
      headers: {
        ...(session?.headers ?? {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const names = async () => ((await t.request('GET', PERSONS)).body.items as any[]).map((p) => p.metadata.name).sort();
  const expectProblem = (response: RawResponse, status: number, detail: RegExp) => {
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status });
    expect(response.body.detail).toMatch(detail);
  };

  beforeAll(async () => {
    t = await startTestServer({ backend });
    base = await t.server.listen();
    admin = await login(t, ADMIN.username, ADMIN.password);
    for (const r of [
      role('persons-get-delete', ['persons'], ['get', 'delete']),
      role('persons-status', ['persons/status'], ['get', 'update']),
    ]) {
      expect((await t.request('POST', '/api/v1alpha1/roles', r)).status).toBe(201);
    }
    getDelete = await userWithRoles(t, admin, 'gd', ['persons-get-delete']);
    statusOnly = await userWithRoles(t, admin, 'st', ['persons-status']);
    for (const name of ['ann', 'bob']) {
      expect((await t.request('POST', PERSONS, person(name, {}, { 'example.com/team': 'x' }))).status).toBe(201);
    }
  }, 60_000);
  afterAll(() => t.close());

  it('serves a get-and-delete role exactly those verbs', async () => {
    expect((await send(getDelete, 'GET', `${PERSONS}/ann`)).body.kind).toBe('Person');
    expect((await send(getDelete, 'GET', PERSONS)).status).toBe(403);
    expect((await send(getDelete, 'GET', `${PERSONS}?watch=true`)).status).toBe(403);
  });

  it('refuses a "#" that would have read the list as a get', async () => {
    expectProblem(await send(getDelete, 'GET', `${PERSONS}/#x`), 400, /"#"/);
  });

  it('refuses a "#" that would have opened a watch as a get', async () => {
    expectProblem(await send(getDelete, 'GET', `${PERSONS}/#&watch=true`), 400, /"#"/);
  });

  it('refuses a "#" that would have deleted a collection as one delete, and deletes nothing', async () => {
    const response = await send(getDelete, 'DELETE', `${PERSONS}/#&labelSelector=example.com/team=x`);
    expectProblem(response, 400, /"#"/);
    expect(await names()).toEqual(expect.arrayContaining(['ann', 'bob']));
  });

  it('refuses a "#" that would have read a whole object or written spec through a status-only role', async () => {
    expectProblem(await send(statusOnly, 'GET', `${PERSONS}/#/status`), 400, /"#"/);
    const current = (await t.request('GET', `${PERSONS}/ann`)).body;
    const changed = { ...current, spec: { ...current.spec, age: 99 } };
    expectProblem(await send(statusOnly, 'PUT', `${PERSONS}/ann#/status`, changed), 400, /"#"/);
    expect((await t.request('GET', `${PERSONS}/ann`)).body.spec.age).toBe(30);
  });

  it('decodes percent-encoded segments once, for the gate and the router alike', async () => {
    const response = await send(getDelete, 'GET', '/apis/people.svc.run/v1alpha1/person%73/%61nn');
    expect(response.status).toBe(200);
    expect(response.body.metadata.name).toBe('ann');
    expect((await send(getDelete, 'GET', '/apis/people.svc.run/v1alpha1/person%73')).status).toBe(403);
  });

  it('refuses malformed percent-encoding, encoded slashes and dot segments with problem+json', async () => {
    expectProblem(await send(admin, 'GET', `${PERSONS}/%`), 400, /percent-encoded byte/);
    expectProblem(await send(admin, 'GET', `${PERSONS}/%zz`), 400, /percent-encoded byte/);
    expectProblem(await send(admin, 'GET', `${PERSONS}/%C0%AE`), 400, /UTF-8/);
    expectProblem(await send(admin, 'GET', `${PERSONS}/a%2Fb`), 400, /encodes a "\/"/);
    expectProblem(await send(admin, 'GET', `${PERSONS}/../persons/ann`), 400, /"\.\." segment/);
    expectProblem(await send(admin, 'GET', `${PERSONS}?labelSelector=%zz`), 400, /query string/);
  });

  it('accepts an absolute-form target for this host only', async () => {
    const host = new URL(base).host;
    expect((await send(admin, 'GET', `http://${host}${PERSONS}/ann`)).body.metadata.name).toBe('ann');
    expectProblem(await send(admin, 'GET', `http://evil.example${PERSONS}/ann`), 400, /names host "evil.example"/);
  });

  it("answers the HTTP parser's refusals as problem+json", async () => {
    const host = new URL(base).host;
    const oversized = await rawBytes(
      base,
      `GET ${PERSONS} HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(oversized.status).toBe(431);
    expect(oversized.headers['content-type']).toBe('application/problem+json');
    expect(oversized.body).toMatchObject({ status: 431, title: 'Request Header Fields Too Large' });
    const unknownMethod = await rawBytes(base, `FROB ${PERSONS} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(unknownMethod.status).toBe(400);
    expect(unknownMethod.body).toMatchObject({ status: 400, title: 'Bad Request' });
    const controlInTarget = await rawBytes(base, `GET ${PERSONS}/a\u0001b HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(controlInTarget.status).toBe(400);
    expect(controlInTarget.body).toMatchObject({ status: 400 });
  });

  it('answers HEAD like GET, without a body, wherever GET is allowed', async () => {
    const get = await send(getDelete, 'GET', `${PERSONS}/ann`);
    const head = await send(getDelete, 'HEAD', `${PERSONS}/ann`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect((await send(getDelete, 'HEAD', PERSONS)).status).toBe(403);
    const list = await send(admin, 'HEAD', `${PERSONS}?watch=true`);
    expect([list.status, list.text, list.headers['content-type']]).toEqual([
      200,
      '',
      'application/json; charset=utf-8',
    ]);
    expect((await send(undefined, 'HEAD', '/healthz')).status).toBe(200);
    expect((await send(admin, 'HEAD', `${PERSONS}/nobody`)).status).toBe(404);
  });
});
