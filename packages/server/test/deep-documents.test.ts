import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PERSONS, person, startTestServer, type TestResponse, type TestServer } from './harness.js';

/**
 * Documents nested deeper than the documented limit (100 levels) are refused with 400 problem+json on every route that
 * reads a JSON body, before any patch, validation or copy runs (issue 13, item 7): they used to overflow the stack
 * (500), and a deep status could be stored and then wedge its object.
 */
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** A Person's `spec.otherPerson` chain: each level is a Person (`{spec: {name, otherPerson}}`), two objects deep. */
const otherPersons = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { spec: { name: 'leaf' } };
  for (let i = 0; i < levels; i++) value = { spec: { name: `level ${i}`, otherPerson: value } };
  return value;
};

describe.each(BACKENDS)('deep documents (%s)', (backend) => {
  let t: TestServer;
  const expect400 = (response: TestResponse, detail: RegExp) => {
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status: 400 });
    expect(response.body.detail).toMatch(detail);
  };

  beforeAll(async () => {
    t = await startTestServer({ backend });
    expect((await t.request('POST', PERSONS, person('ann'))).status).toBe(201);
  }, 60_000);
  afterAll(() => t.close());

  it('refuses a create body nested 2,000 levels deep', async () => {
    const body = JSON.stringify({ ...person('deep'), spec: { name: 'deep', otherPerson: otherPersons(1000) } });
    expect400(await t.request('POST', PERSONS, body, { 'content-type': 'application/json' }), /deeper than 100 levels/);
    expect((await t.request('GET', `${PERSONS}/deep`)).status).toBe(404);
  });

  it("refuses 4 MiB of shallow arrays, and of one object's keys, before reading them: too many values", async () => {
    // Each under the depth limit and the 4 MiB body limit; each held the server for half a second or more once parsed.
    const arrays = `{"spec":{"name":"wide","tags":[${Array(2_000_000).fill('[]').join(',').slice(0, 4_000_000)}]}}`;
    const keys = JSON.stringify({
      ...person('wide'),
      spec: Object.fromEntries(Array.from({ length: 350_000 }, (_, i) => [`k${i}`, 1])),
    });
    for (const body of [arrays, keys]) {
      expect(body.length).toBeLessThan(4 * 1024 * 1024);
      expect400(
        await t.request('POST', PERSONS, body, { 'content-type': 'application/json' }),
        /more than 100000 values/,
      );
    }
    expect((await t.request('GET', `${PERSONS}/wide`)).status).toBe(404);
  });

  it('refuses a status written 2,000 levels deep, and the object stays patchable and deletable', async () => {
    const current = (await t.request('GET', `${PERSONS}/ann`)).body;
    const body = JSON.stringify({ ...current, status: { conditions: deepArray(2000) } }).replace(
      `"${deepArray(2000)}"`,
      deepArray(2000),
    );
    expect400(
      await t.request('PUT', `${PERSONS}/ann/status`, body, { 'content-type': 'application/json' }),
      /deeper than 100 levels/,
    );
    const patched = await t.request(
      'PATCH',
      `${PERSONS}/ann`,
      { spec: { age: 31 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.spec.age).toBe(31);
  });

  it('refuses deep merge patches and JSON Patches', async () => {
    const merge = `{"spec":${deepArray(150)}}`;
    expect400(
      await t.request('PATCH', `${PERSONS}/ann`, merge, { 'content-type': 'application/merge-patch+json' }),
      /deeper than 100/,
    );
    const jsonPatch = `[{"op":"add","path":"/metadata/annotations","value":${deepArray(150)}}]`;
    expect400(
      await t.request('PATCH', `${PERSONS}/ann`, jsonPatch, { 'content-type': 'application/json-patch+json' }),
      /deeper than 100/,
    );
  });

  it('refuses a JSON Patch that grows an object past the limit, and the object stays deletable', async () => {
    const value = otherPersons(29); // 59 levels: the patch body and the result stay under the limit
    const first = [{ op: 'add', path: '/spec/otherPerson', value }];
    expect(
      (await t.request('PATCH', `${PERSONS}/ann`, first, { 'content-type': 'application/json-patch+json' })).status,
    ).toBe(200);
    // The same chain again below the innermost person: each body is fine, the result would nest 121 levels deep.
    const second = [{ op: 'add', path: `/spec${'/otherPerson/spec'.repeat(30)}/otherPerson`, value }];
    const refused = await t.request('PATCH', `${PERSONS}/ann`, second, {
      'content-type': 'application/json-patch+json',
    });
    expect400(refused, /Person nests objects and arrays deeper than 100 levels/);
    const removed = await t.request('PATCH', `${PERSONS}/ann`, [{ op: 'remove', path: '/spec/otherPerson' }], {
      'content-type': 'application/json-patch+json',
    });
    expect(removed.status).toBe(200);
    expect((await t.request('DELETE', `${PERSONS}/ann`)).status).toBe(200);
  });

  it('refuses lone UTF-16 surrogates and keeps control characters in free text', async () => {
    const lone = JSON.stringify(person('lone')).replace('"Person lone"', '"x\\ud800"');
    expect400(await t.request('POST', PERSONS, lone, { 'content-type': 'application/json' }), /lone UTF-16 surrogate/);
    const withNul = JSON.stringify(person('nul')).replace('"Person nul"', '"a\\u0000b\\r\\n"');
    const created = await t.request('POST', PERSONS, withNul, { 'content-type': 'application/json' });
    expect(created.status).toBe(201);
    expect((await t.request('GET', `${PERSONS}/nul`)).body.spec.name).toBe('a\u0000b\r\n');
  });

  it('refuses deep bodies on core routes too', async () => {
    const deepRoles = `{"roles":${deepArray(500)}}`;
    expect400(
      await t.request('POST', '/apis/api.console.svc.run/v1alpha1/users/admin/permissions', deepRoles, {
        'content-type': 'application/json',
      }),
      /deeper than 100/,
    );
  });
});
