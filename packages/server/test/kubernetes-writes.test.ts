import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PERSONS, peopleSettled, person, startTestServer, type TestServer } from './harness.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };

/**
 * Writes as Kubernetes clients make them (issue 15): dryRun=All never writes, DeleteOptions (empty, dry run,
 * preconditions), metadata.resourceVersion as the optimistic lock, and strategic merge patch applied as a merge patch.
 */
describe.each(BACKENDS)('writes as Kubernetes clients make them (%s)', (backend) => {
  let t: TestServer;
  const names = async () => ((await t.request('GET', PERSONS)).body.items as any[]).map((p) => p.metadata.name).sort();
  const stored = async (name: string) => (await t.request('GET', `${PERSONS}/${name}`)).body;

  beforeAll(async () => {
    t = await startTestServer({ backend });
    for (const name of ['kw-a', 'kw-b']) {
      expect((await t.request('POST', PERSONS, person(name, { name: `Person ${name}` }))).status).toBe(201);
    }
  }, 60_000);
  afterAll(() => t.close());

  it('dryRun=All answers a create without storing it, and still refuses what the real write would', async () => {
    const before = await names();
    const created = await t.request('POST', `${PERSONS}?dryRun=All`, person('kw-dry', { name: 'Dry' }));
    expect(created.status).toBe(201);
    expect(created.body.metadata.name).toBe('kw-dry');
    expect(created.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await t.request('GET', `${PERSONS}/kw-dry`)).status).toBe(404);
    expect(await names()).toEqual(before);
    // The unique index is checked as for a real create.
    const taken = await t.request('POST', `${PERSONS}?dryRun=All`, person('kw-other', { name: 'Person kw-a' }));
    expect(taken.status).toBe(409);
    // A real create of the same name afterwards is not blocked by the dry run.
    expect((await t.request('POST', PERSONS, person('kw-dry', { name: 'Dry' }))).status).toBe(201);
  });

  it('dryRun=All answers an update, a patch and a delete without changing the stored object', async () => {
    await peopleSettled(t);
    const current = await stored('kw-a');
    const updated = await t.request('PUT', `${PERSONS}/kw-a?dryRun=All`, {
      ...current,
      spec: { ...current.spec, age: 41 },
    });
    expect([updated.status, updated.body.spec.age]).toEqual([200, 41]);
    const patched = await t.request('PATCH', `${PERSONS}/kw-a?dryRun=All`, { spec: { age: 42 } }, MERGE);
    expect([patched.status, patched.body.spec.age]).toEqual([200, 42]);
    const deleted = await t.request('DELETE', `${PERSONS}/kw-a?dryRun=All`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.deletionTimestamp).toMatch(/Z$/);
    const after = await stored('kw-a');
    expect(after.spec.age).toBe(current.spec.age);
    expect(after.metadata.version).toBe(current.metadata.version);
    expect(after.metadata.deletionTimestamp).toBeUndefined();
  });

  it('dryRun=All on a collection counts what would go and deletes nothing', async () => {
    const before = await names();
    const answer = await t.request('DELETE', `${PERSONS}?dryRun=All`);
    expect(answer.status).toBe(200);
    expect(answer.body.deleted).toBe(before.length);
    expect(await names()).toEqual(before);
  });

  it('refuses any other dryRun value with 400', async () => {
    const answer = await t.request('POST', `${PERSONS}?dryRun=true`, person('kw-x'));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toContain('dryRun may only be "All"');
    expect((await t.request('GET', `${PERSONS}/kw-x`)).status).toBe(404);
  });

  it('takes DeleteOptions: none under a JSON type, a dry run, and preconditions', async () => {
    expect((await t.request('POST', PERSONS, person('kw-del'))).status).toBe(201);
    // The people controller writes each new person once (finalizer, status): let it, so revisions hold still.
    await peopleSettled(t);
    const json = { 'content-type': 'application/json' };
    const dry = await t.request('DELETE', `${PERSONS}/kw-del`, { kind: 'DeleteOptions', dryRun: ['All'] });
    expect(dry.status).toBe(200);
    expect((await stored('kw-del')).metadata.deletionTimestamp).toBeUndefined();
    const current = await stored('kw-del');
    const stale = await t.request('DELETE', `${PERSONS}/kw-del`, { preconditions: { resourceVersion: '1' } });
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toContain('precondition');
    const otherUid = await t.request('DELETE', `${PERSONS}/kw-del`, {
      preconditions: { uid: '00000000-0000-0000-0000-000000000000' },
    });
    expect(otherUid.status).toBe(409);
    expect((await stored('kw-del')).metadata.deletionTimestamp).toBeUndefined();
    const matching = {
      preconditions: { uid: current.metadata.uid, resourceVersion: current.metadata.resourceVersion },
    };
    expect((await t.request('DELETE', `${PERSONS}/kw-del`, matching)).status).toBe(200);
    // An empty body under a JSON content type, as @kubernetes/client-node sends by default.
    expect((await t.request('POST', PERSONS, person('kw-empty'))).status).toBe(201);
    expect((await t.request('DELETE', `${PERSONS}/kw-empty`, '', json)).status).toBe(200);
  });

  it('takes metadata.resourceVersion as the optimistic lock on update and patch', async () => {
    await peopleSettled(t);
    const current = await stored('kw-b');
    const { version: _version, ...withoutVersion } = current.metadata;
    const byRevision = { ...current, metadata: withoutVersion, spec: { ...current.spec, age: 50 } };
    const updated = await t.request('PUT', `${PERSONS}/kw-b`, byRevision);
    expect(updated.status).toBe(200);
    expect(updated.body.metadata.version).toBe(current.metadata.version + 1);
    // The same body again carries a revision that is no longer the stored one.
    const stale = await t.request('PUT', `${PERSONS}/kw-b`, { ...byRevision, spec: { ...current.spec, age: 51 } });
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toContain('metadata.resourceVersion');
    const stalePatch = await t.request(
      'PATCH',
      `${PERSONS}/kw-b`,
      { metadata: { resourceVersion: '1' }, spec: { age: 52 } },
      MERGE,
    );
    expect(stalePatch.status).toBe(409);
    expect((await stored('kw-b')).spec.age).toBe(50);
  });

  it('applies a strategic merge patch as a merge patch', async () => {
    const patched = await t.request(
      'PATCH',
      `${PERSONS}/kw-b`,
      { spec: { age: 60 } },
      {
        'content-type': 'application/strategic-merge-patch+json',
      },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.spec).toMatchObject({ age: 60, name: 'Person kw-b' });
  });
});
