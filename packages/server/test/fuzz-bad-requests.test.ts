import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';
import { rawRequest } from './raw-http.js';
import { seededRandom } from './seeded-random.js';

/**
 * A seeded fuzzer of malformed requests (issue 13, item 7): odd targets, wrong media types, deep and broken bodies.
 * Only a bug is a 500, and every 4xx svc sends is problem+json whose `status` matches the response's.
 */
const TARGETS = [
  PERSONS,
  `${PERSONS}/ann`,
  `${PERSONS}/ann/status`,
  `${PERSONS}/ann/x`,
  `${PERSONS}/%zz`,
  `${PERSONS}/%`,
  `${PERSONS}/%C0%AE`,
  `${PERSONS}/#x`,
  `${PERSONS}?watch=%`,
  `${PERSONS}?sort=nope,up`,
  `${PERSONS}?labelSelector=!!`,
  `${PERSONS}?size=-1`,
  `${PERSONS}?page=0`,
  `${PERSONS}?fieldSelector=spec.unknown=1`,
  '/apis/people.svc.run/v1alpha1',
  '/apis/x/y/z/a/b/c/d',
  '/api/v1alpha1/users/%2e%2e',
  '/api/v1alpha1/roles/super-role',
  '/apis/api.console.svc.run/v1alpha1/users/-/password',
  '/apis/api.console.svc.run/v1alpha1/accessreviews',
  '/login',
  '/nope',
  '/',
  `${PERSONS}/${'a'.repeat(300)}`,
];
const TYPES = [
  'application/json',
  'application/merge-patch+json',
  'application/json-patch+json',
  'text/plain',
  'application/xml',
  '',
];
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const BODIES = [
  '',
  '{',
  '[]',
  'null',
  '"x"',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{}}}',
  deep(101),
  deep(5000),
  `{"spec":${deep(3000)}}`,
  '{"a":"\\ud800"}',
  '[{"op":"add","path":"/spec/age","value":1e999}]',
  '[{"op":"nope"}]',
  '{"metadata":{"name":"Bad Name"}}',
  JSON.stringify(person('fz')),
  JSON.stringify({ ...person('fz2'), spec: { age: 'old' } }),
  `{"x":"${'y'.repeat(10_000)}"}`,
  '{"oldPassword":1}',
  '{"method":"GET","path":"/apis/#"}',
  '\u0000',
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

describe.each(BACKENDS)('fuzzed bad requests (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  beforeAll(async () => {
    t = await startTestServer({ backend });
    base = await t.server.listen();
    expect((await t.request('POST', PERSONS, person('ann'))).status).toBe(201);
  }, 60_000);
  afterAll(() => t.close());

  it('answers 1,000 malformed requests without a 500, every 4xx as problem+json', async () => {
    const next = seededRandom(backend === 'sqlite' ? 7 : 8);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    const seen = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      const method = pick(METHODS);
      const target = pick(TARGETS);
      const type = pick(TYPES);
      const body = method === 'GET' || method === 'HEAD' ? undefined : pick(BODIES);
      const headers: Record<string, string> = {
        ...t.adminHeaders,
        ...(type && body !== undefined ? { 'content-type': type } : {}),
      };
      const response = await rawRequest(base, method, target, { headers, body }).catch((error: Error) => {
        throw new Error(`${method} ${target} (${type}) ${body?.slice(0, 60)}: ${error.message}`);
      });
      const what = `${method} ${target} (${type}) ${body?.slice(0, 60)} → ${response.status} ${response.text.slice(0, 200)}`;
      seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
      expect(response.status, what).toBeLessThan(500);
      if (response.status >= 400 && method !== 'HEAD') {
        expect(response.headers['content-type'], what).toMatch(/^application\/problem\+json/);
        expect(response.body?.status, what).toBe(response.status);
      }
    }
    // The fuzzer reached the handlers, not only the parser: successes and several kinds of refusal.
    expect([...seen.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(3);
    expect([...seen.keys()].some((s) => s < 300)).toBe(true);
  }, 120_000);
});
