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
