import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PERSONS, peopleSettled, person, startTestServer, type TestServer } from './harness.js';

/**
 * Every client mistake the custom-models issue lists gets its 4xx problem+json, and afterwards the stored data and the
 * indexes are exactly as before (a list through the indexes, sorted and selected, reads the same).
 */
describe.each(BACKENDS)('bad input is refused and changes nothing (%s)', (backend) => {
  let t: TestServer;
  const snapshot = async () => {
    const byAge = await t.request('GET', `${PERSONS}?sort=spec.age,asc&fieldSelector=spec.gender=FEMALE`);
    const all = await t.request('GET', PERSONS);
    const stats = await t.request('GET', '/apis/console.api.people.svc.run/v1alpha1/stats');
    return JSON.stringify([byAge.body.items, all.body.items, stats.body]);
  };
  let before: string;

  beforeAll(async () => {
    t = await startTestServer({ backend });
    expect((await t.request('POST', PERSONS, person('bob', { name: 'Bob', age: 40, gender: 'MALE' }))).status).toBe(
      201,
    );
    expect((await t.request('POST', PERSONS, person('carol', { name: 'Carol', age: 50 }))).status).toBe(201);
    await peopleSettled(t);
    before = await snapshot();
  });
  afterAll(() => t.close());

  const cases: Array<{
    name: string;
    send: () => Promise<{ status: number; headers: Record<string, unknown>; body: any }>;
    status: number;
    detail: RegExp;
    errorPath?: string;
  }> = [
    {
      name: 'malformed JSON',
      send: () =>
        t.request('POST', PERSONS, '{"apiVersion": "people.svc.run/v1alpha1", "kind": ', {
          'content-type': 'application/json',
        }),
      status: 400,
      detail: /not valid JSON/,
    },
    {
      name: 'wrong types in spec',
      send: () => t.request('POST', PERSONS, person('dave', { age: 'forty', gender: 'OTHER' })),
      status: 400,
      detail: /\/spec\/age/,
      errorPath: '/spec/gender',
    },
    {
      name: 'age over the maximum',
      send: () => t.request('POST', PERSONS, person('dave', { age: 151 })),
      status: 400,
      detail: /<= 150/,
      errorPath: '/spec/age',
    },
    {
      name: 'a name with capitals',
      send: () => t.request('POST', PERSONS, person('Dave')),
      status: 400,
      detail: /metadata\/name/,
      errorPath: '/metadata/name',
    },
    {
      name: 'a name over 253 characters',
      send: () => t.request('POST', PERSONS, person('a'.repeat(254))),
      status: 400,
      detail: /253/,
      errorPath: '/metadata/name',
    },
    {
      name: 'a label key with a reserved prefix',
      send: () => t.request('POST', PERSONS, person('dave', {}, { 'svc.run/mine': 'x' })),
      status: 400,
      detail: /svc\.run\/mine/,
    },
    {
      name: 'a field selector on an unindexed field',
      send: () => t.request('GET', `${PERSONS}?fieldSelector=spec.nickname=x`),
      status: 400,
      detail: /spec\.nickname.*spec\.age/s,
    },
    {
      name: 'a sort on an unindexed field',
      send: () => t.request('GET', `${PERSONS}?sort=spec.nickname,asc`),
      status: 400,
      detail: /spec\.nickname/,
    },
    {
      name: 'a bad sort direction',
      send: () => t.request('GET', `${PERSONS}?sort=spec.age,sideways`),
      status: 400,
      detail: /sideways/,
    },
    { name: 'page=0', send: () => t.request('GET', `${PERSONS}?page=0&size=1`), status: 400, detail: /page/ },
    { name: 'size=-1', send: () => t.request('GET', `${PERSONS}?size=-1`), status: 400, detail: /size/ },
    {
      name: 'a malformed label selector',
      send: () => t.request('GET', `${PERSONS}?labelSelector=${encodeURIComponent('a in (b')}`),
      status: 400,
      detail: /a in \(b/,
    },
    {
      name: "a body whose kind is another model's",
      send: () => t.request('POST', PERSONS, { ...person('dave'), kind: 'Robot' }),
      status: 400,
      detail: /kind/,
    },
    {
      name: 'a body whose apiVersion is another version',
      send: () => t.request('POST', PERSONS, { ...person('dave'), apiVersion: 'people.svc.run/v2' }),
      status: 400,
      detail: /apiVersion/,
    },
    {
      name: 'an update without metadata.version',
      send: () => t.request('PUT', `${PERSONS}/bob`, person('bob', { age: 41 })),
      status: 409,
      detail: /metadata\.version \(or metadata\.resourceVersion\) is required/,
    },
    {
      name: 'an update with a stale version',
      send: async () => {
        const body = person('bob', { age: 41 });
        return t.request('PUT', `${PERSONS}/bob`, { ...body, metadata: { ...body.metadata, version: 7 } });
      },
      status: 409,
      detail: /version/,
    },
    {
      name: 'an update whose body names another object',
      send: () => t.request('PUT', `${PERSONS}/bob`, { ...person('carol'), metadata: { name: 'carol', version: 0 } }),
      status: 400,
      detail: /does not match/,
    },
    {
      name: 'a duplicate name',
      send: () => t.request('POST', PERSONS, person('bob', { name: 'Another Bob' })),
      status: 409,
      detail: /already exists/,
    },
    {
      name: 'a duplicate unique value',
      send: () => t.request('POST', PERSONS, person('bobby', { name: 'Bob' })),
      status: 409,
      detail: /spec\.name/,
    },
    {
      name: 'an update to a duplicate unique value',
      send: async () => {
        const carol = (await t.request('GET', `${PERSONS}/carol`)).body;
        return t.request('PUT', `${PERSONS}/carol`, { ...carol, spec: { ...carol.spec, name: 'Bob' } });
      },
      status: 409,
      detail: /spec\.name/,
    },
    {
      name: 'a PATCH with an unknown content type',
      send: () => t.request('PATCH', `${PERSONS}/bob`, '{"spec":{"age":1}}', { 'content-type': 'text/x-patch' }),
      status: 415,
      detail: /./,
    },
    {
      name: 'a PATCH sent as plain application/json',
      send: () => t.request('PATCH', `${PERSONS}/bob`, { spec: { age: 1 } }),
      status: 415,
      detail: /merge-patch/,
    },
    {
      name: 'a JSON Patch that breaks the schema',
      send: () =>
        t.request('PATCH', `${PERSONS}/bob`, [{ op: 'replace', path: '/spec/age', value: -1 }], {
          'content-type': 'application/json-patch+json',
        }),
      status: 400,
      detail: /\/spec\/age/,
    },
    {
      name: 'a merge patch that changes metadata.version',
      send: () =>
        t.request(
          'PATCH',
          `${PERSONS}/bob`,
          { metadata: { version: 99 }, spec: { age: 2 } },
          {
            'content-type': 'application/merge-patch+json',
          },
        ),
      status: 409,
      detail: /version/,
    },
    {
      name: 'a 10 MiB body',
      send: () =>
        t.request('POST', PERSONS, JSON.stringify({ ...person('huge'), pad: 'x'.repeat(10 * 1024 * 1024) }), {
          'content-type': 'application/json',
        }),
      status: 413,
      detail: /4 MiB/,
    },
    {
      name: '__proto__ keys in a body',
      send: () =>
        t.request(
          'POST',
          PERSONS,
          '{"apiVersion":"people.svc.run/v1alpha1","kind":"Person","metadata":{"name":"evil"},"spec":{"__proto__":{"admin":true}}}',
          {
            'content-type': 'application/json',
          },
        ),
      status: 400,
      detail: /./,
    },
    {
      name: '__proto__ keys in a merge patch',
      send: () =>
        t.request('PATCH', `${PERSONS}/bob`, '{"__proto__":{"polluted":true}}', {
          'content-type': 'application/merge-patch+json',
        }),
      status: 400,
      detail: /./,
    },
    {
      name: 'a text/plain body on create',
      send: () => t.request('POST', PERSONS, 'hello', { 'content-type': 'text/plain' }),
      status: 415,
      detail: /./,
    },
    {
      name: 'a body that is a JSON array',
      send: () => t.request('POST', PERSONS, '[1,2]', { 'content-type': 'application/json' }),
      status: 400,
      detail: /object/,
    },
    {
      name: 'an unknown model',
      send: () => t.request('GET', '/apis/people.svc.run/v1alpha1/robots'),
      status: 404,
      detail: /robots/,
    },
    { name: 'an unknown object', send: () => t.request('GET', `${PERSONS}/nobody`), status: 404, detail: /nobody/ },
    {
      name: 'a POST with a name in the path',
      send: () => t.request('POST', `${PERSONS}/dave`, person('dave')),
      status: 404,
      detail: /POST/,
    },
  ];

  it.each(cases)('$name → $status', async ({ send, status, detail, errorPath }) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(String(response.headers['content-type'])).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status, title: expect.any(String), type: expect.any(String) });
    expect(response.body.detail).toMatch(detail);
    expect(response.body.instance).toMatch(/^\/apis\//);
    if (errorPath) expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(errorPath);
    expect(await snapshot()).toBe(before);
  });

  it('does not pollute Object.prototype', () => {
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
