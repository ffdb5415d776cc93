import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PEOPLE_PLUGINS, PERSONS, startTestServer, type TestServer } from './harness.js';
import { NOTES, NOTES_PLUGINS, note } from './watch-client.js';

const merge = { 'content-type': 'application/merge-patch+json' };
const jsonPatch = { 'content-type': 'application/json-patch+json' };

/**
 * `…/{name}/status` (docs/api.md "Generated routes"): writes only status; for models that opt in, the main route
 * cannot.
 */
describe.each(BACKENDS)('the status subresource (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [NOTES_PLUGINS, PEOPLE_PLUGINS] });
  });
  afterAll(() => t.close());

  it('reads the whole object at …/status', async () => {
    const created = await t.request('POST', NOTES, note('s-get', { text: 'a' }));
    const got = await t.request('GET', `${NOTES}/s-get/status`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
  });

  it('PUT …/status changes status and nothing else, with optimistic locking', async () => {
    const created = (await t.request('POST', NOTES, note('s-put', { text: 'before' }, { 'example.com/x': '1' }))).body;
    const body = {
      ...created,
      metadata: { ...created.metadata, labels: { 'example.com/x': '2' } },
      spec: { text: 'after' },
      status: { phase: 'Done' },
    };
    const written = await t.request('PUT', `${NOTES}/s-put/status`, body);
    expect(written.status).toBe(200);
    expect(written.body.status).toEqual({ phase: 'Done' });
    expect(written.body.spec).toEqual({ text: 'before' });
    expect(written.body.metadata.labels).toEqual({ 'example.com/x': '1' });
    expect(written.body.metadata.version).toBe(created.metadata.version + 1);
    const stale = await t.request('PUT', `${NOTES}/s-put/status`, body);
    expect(stale.status).toBe(409);
  });

  it('PATCH …/status applies merge patch and JSON Patch to status only', async () => {
    await t.request('POST', NOTES, note('s-patch', { text: 'kept' }));
    const merged = await t.request(
      'PATCH',
      `${NOTES}/s-patch/status`,
      { spec: { text: 'ignored' }, status: { phase: 'Running' } },
      merge,
    );
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ spec: { text: 'kept' }, status: { phase: 'Running' } });
    const patched = await t.request(
      'PATCH',
      `${NOTES}/s-patch/status`,
      [{ op: 'replace', path: '/status/phase', value: 'Done' }],
      jsonPatch,
    );
    expect(patched.body.status).toEqual({ phase: 'Done' });
    const invalid = await t.request('PATCH', `${NOTES}/s-patch/status`, { status: { phase: 3 } }, merge);
    expect(invalid.status).toBe(400);
  });

  it('ignores status in create, update and patch of the main route for a model that opts in', async () => {
    const created = await t.request('POST', NOTES, { ...note('s-main'), status: { phase: 'Forged' } });
    expect(created.body.status).toBeUndefined();
    await t.request('PATCH', `${NOTES}/s-main/status`, { status: { phase: 'Real' } }, merge);
    const patched = await t.request(
      'PATCH',
      `${NOTES}/s-main`,
      { spec: { text: 'x' }, status: { phase: 'Forged' } },
      merge,
    );
    expect(patched.body).toMatchObject({ spec: { text: 'x' }, status: { phase: 'Real' } });
    const current = patched.body;
    const updated = await t.request('PUT', `${NOTES}/s-main`, { ...current, status: { phase: 'Forged' } });
    expect(updated.status).toBe(200);
    expect(updated.body.status).toEqual({ phase: 'Real' });
  });

  it('answers 404 for an unknown object or subresource', async () => {
    expect((await t.request('GET', `${NOTES}/nobody/status`)).status).toBe(404);
    expect((await t.request('GET', `${NOTES}/s-get/scale`)).status).toBe(404);
  });

  it('is served for Person, which opts in', async () => {
    const ada = await t.request('GET', `${PERSONS}/ada/status`);
    expect(ada.status).toBe(200);
    expect(ada.body.metadata.name).toBe('ada');
  });
});
