import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';

/** Errors negotiated by Accept (docs/api.md "Errors"): a Kubernetes Status for kubectl and client-node, problem+json else. */
describe.each(BACKENDS)('errors for Kubernetes clients (%s)', (backend) => {
  let t: TestServer;
  const asKubectl = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
  beforeAll(async () => {
    t = await startTestServer({ backend });
  }, 60_000);
  afterAll(() => t.close());

  it("answers a not-found as a Status with svc's message", async () => {
    const missing = await t.request('GET', `${PERSONS}/nobody`, undefined, asKubectl);
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
    expect(missing.body).toMatchObject({ kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' });
    expect(missing.body.message).toContain('"nobody" not found');
  });

  it('answers a validation error and a conflict as Statuses, with the field causes', async () => {
    const invalid = await t.request('POST', PERSONS, person('kx', { age: 200 }), asKubectl);
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ kind: 'Status', code: 400, reason: 'Invalid' });
    expect(invalid.body.details.causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.age',
      message: 'must be <= 150',
    });
    expect((await t.request('POST', PERSONS, person('kx'))).status).toBe(201);
    const taken = await t.request('POST', PERSONS, person('kx'), { accept: 'application/json' });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ kind: 'Status', code: 409, reason: 'AlreadyExists' });
  });

  it('keeps problem+json for everyone else', async () => {
    for (const accept of [undefined, '*/*', 'application/problem+json, application/json']) {
      const missing = await t.request('GET', `${PERSONS}/nobody`, undefined, accept ? { accept } : {});
      expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(missing.body).toMatchObject({ status: 404, title: 'Not Found' });
    }
  });
});

/** Kubernetes' limit/continue paging beside svc's page/size (issue 15 item 3). */
describe.each(BACKENDS)('limit and continue (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    const role = (n: number) => ({ apiVersion: 'v1alpha1', kind: 'Role', metadata: { name: `chunk-${n}` }, rules: [] });
    for (let n = 1; n <= 5; n++) expect((await t.request('POST', '/api/v1alpha1/roles', role(n))).status).toBe(201);
  }, 60_000);
  afterAll(() => t.close());

  it('pages with limit, following metadata.continue until it is gone, every object once', async () => {
    const seen: string[] = [];
    let url =
      '/api/v1alpha1/roles?limit=3&fieldSelector=metadata.name=(chunk-1,chunk-2,chunk-3,chunk-4,chunk-5)&sort=metadata.name,asc';
    const first = await t.request('GET', url);
    expect(first.status).toBe(200);
    expect(first.body.items.length).toBe(3);
    expect(first.body.metadata.remainingItemCount).toBe(2);
    seen.push(...first.body.items.map((r: { metadata: { name: string } }) => r.metadata.name));
    url += `&continue=${encodeURIComponent(first.body.metadata.continue)}`;
    const second = await t.request('GET', url);
    expect(second.body.metadata.continue).toBeUndefined();
    seen.push(...second.body.items.map((r: { metadata: { name: string } }) => r.metadata.name));
    expect(seen).toEqual(['chunk-1', 'chunk-2', 'chunk-3', 'chunk-4', 'chunk-5']);
  });

  it('refuses a token it did not give, and mixing the two kinds of paging', async () => {
    const forged = await t.request('GET', '/api/v1alpha1/roles?limit=2&continue=nonsense');
    expect(forged.status).toBe(400);
    expect(forged.body.detail).toContain('continue token');
    const mixed = await t.request('GET', '/api/v1alpha1/roles?limit=2&page=2');
    expect(mixed.status).toBe(400);
  });
});
