import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtensionClient } from '../src/registry/client.js';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';

const PERSON = { apiVersion: 'people.svc.run/v1alpha1', kind: 'Person' };

/** `ctx.client.patch` (issue 31 item 5): JSON Patch and merge patch in process, with the HTTP API's rules. */
describe.each(BACKENDS)('the in-process client patch (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  }, 60_000);
  afterAll(() => t.close());
  const client = () => createExtensionClient(t.server.registry, t.server.objects);

  it('applies a merge patch and a JSON Patch, and HTTP reads the result', async () => {
    expect((await t.request('POST', PERSONS, person('pat', { age: 30 }))).status).toBe(201);
    const merged = await client().patch(PERSON, 'pat', { metadata: { labels: { team: 'blue' } }, spec: { age: 31 } });
    expect(merged.metadata.labels).toEqual({ team: 'blue' });
    await client().patch(PERSON, 'pat', [
      { op: 'test', path: '/spec/age', value: 31 },
      { op: 'replace', path: '/spec/name', value: 'Pat Patched' },
      { op: 'remove', path: '/metadata/labels/team' },
    ]);
    const read = await t.request('GET', `${PERSONS}/pat`);
    expect(read.body.spec).toMatchObject({ name: 'Pat Patched', age: 31 });
    expect(read.body.metadata.labels ?? {}).toEqual({});
  });

  it('refuses a failed test with 409, a bad operation and an invalid result with 400, a missing object with 404', async () => {
    await t.request('POST', PERSONS, person('quin', { age: 40 }));
    await expect(client().patch(PERSON, 'quin', [{ op: 'test', path: '/spec/age', value: 41 }])).rejects.toMatchObject({
      status: 409,
      message: 'JSON Patch test operation 0 failed',
    });
    await expect(client().patch(PERSON, 'quin', [{ op: 'nope', path: '/spec/age' } as never])).rejects.toMatchObject({
      status: 400,
    });
    await expect(client().patch(PERSON, 'quin', { spec: { age: 'old' } })).rejects.toMatchObject({ status: 400 });
    await expect(client().patch(PERSON, 'nobody', { spec: { age: 1 } })).rejects.toMatchObject({ status: 404 });
    expect((await t.request('GET', `${PERSONS}/quin`)).body.spec.age).toBe(40);
  });
});
