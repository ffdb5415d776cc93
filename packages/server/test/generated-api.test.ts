import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { BACKENDS, PERSONS, peopleSettled, person, startTestServer, type TestServer } from './harness.js';

describe.each(BACKENDS)('generated API of a custom model (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  });
  afterAll(() => t.close());

  it('serves the objects the plugin declared in extensions/', async () => {
    const ada = await t.request('GET', `${PERSONS}/ada`);
    expect(ada.status).toBe(200);
    expect(ada.body.spec).toEqual({ name: 'Ada Lovelace', age: 36, gender: 'FEMALE' });
    expect(ada.body.metadata.labels['plugin.svc.run/plugin-name']).toBe('people');
    const grace = await t.request('GET', `${PERSONS}/grace`);
    expect(grace.body.spec.otherPerson.spec.name).toBe('Ada Lovelace');
  });

  it('creates, gets, updates and deletes an object with server-owned metadata', async () => {
    const created = await t.request('POST', PERSONS, person('eve', { age: 20 }, { 'example.com/tier': 'gold' }));
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${PERSONS}/eve`);
    const meta = created.body.metadata;
    expect(meta).toMatchObject({ name: 'eve', version: 0, labels: { 'example.com/tier': 'gold' } });
    expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(meta.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(meta.resourceVersion)).toBeGreaterThan(0);
    expect(created.body.apiVersion).toBe('people.svc.run/v1alpha1');

    // The people controller adds its finalizer and a status right after the create; compare once it is done.
    await peopleSettled(t);
    const got = await t.request('GET', `${PERSONS}/eve`);
    expect(got.body).toMatchObject({
      ...created.body,
      metadata: { ...created.body.metadata, version: expect.any(Number), resourceVersion: expect.any(String) },
    });
    expect(got.body.metadata.finalizers).toEqual(['people.svc.run/farewell']);
    expect(got.body.status.ageGroup).toBe('adult');

    const forged = {
      ...got.body,
      metadata: {
        ...got.body.metadata,
        creationTimestamp: '2000-01-01T00:00:00.000Z',
        uid: 'x',
        deletionTimestamp: '2000-01-01T00:00:00.000Z',
      },
      spec: { ...got.body.spec, age: 21 },
    };
    const updated = await t.request('PUT', `${PERSONS}/eve`, forged);
    expect(updated.status).toBe(200);
    expect(updated.body.metadata.version).toBe(got.body.metadata.version + 1);
    expect(updated.body.metadata.creationTimestamp).toBe(meta.creationTimestamp);
    expect(updated.body.metadata.uid).toBe(meta.uid);
    expect(updated.body.metadata.deletionTimestamp).toBeUndefined();
    expect(Number(updated.body.metadata.resourceVersion)).toBeGreaterThan(Number(meta.resourceVersion));
    expect(updated.body.spec.age).toBe(21);

    const stale = await t.request('PUT', `${PERSONS}/eve`, forged);
    expect(stale.status).toBe(409);

    const deleted = await t.request('DELETE', `${PERSONS}/eve`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.deletionTimestamp).toBeTruthy();
    // Removed once the controller has said farewell and dropped its finalizer.
    await eventually(async () => (await t.request('GET', `${PERSONS}/eve`)).status === 404, 'eve to be removed');
  });

  it('fills metadata.name from generateName', async () => {
    const body = person('x');
    const created = await t.request('POST', PERSONS, {
      ...body,
      metadata: { generateName: 'gen-' },
      spec: { name: 'Generated' },
    });
    expect(created.status).toBe(201);
    expect(created.body.metadata.name).toMatch(/^gen-[a-z0-9]{5,}$/);
    expect(created.body.metadata.generateName).toBe('gen-');
  });

  it('keeps an object with finalizers readable until they are removed, then removes it', async () => {
    const created = await t.request('POST', PERSONS, {
      ...person('fin'),
      metadata: { name: 'fin', finalizers: ['example.com/cleanup'] },
    });
    expect(created.status).toBe(201);
    const deleting = await t.request('DELETE', `${PERSONS}/fin`);
    expect(deleting.status).toBe(200);
    const still = await t.request('GET', `${PERSONS}/fin`);
    expect(still.status).toBe(200);
    expect(still.body.metadata.deletionTimestamp).toBe(deleting.body.metadata.deletionTimestamp);
    const listed = await t.request('GET', `${PERSONS}?fieldSelector=metadata.deletionTimestamp!=`);
    expect(listed.body.items.map((o: any) => o.metadata.name)).toEqual(['fin']);
    const again = await t.request('DELETE', `${PERSONS}/fin`);
    expect(again.body.metadata.deletionTimestamp).toBe(deleting.body.metadata.deletionTimestamp);

    const cleared = await t.request(
      'PATCH',
      `${PERSONS}/fin`,
      { metadata: { finalizers: null } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(cleared.status).toBe(200);
    expect((await t.request('GET', `${PERSONS}/fin`)).status).toBe(404);
  });

  it('applies JSON Patch and merge patch', async () => {
    await t.request('POST', PERSONS, person('pat', { age: 10 }, { 'example.com/a': '1' }));
    await peopleSettled(t);
    const settled = (await t.request('GET', `${PERSONS}/pat`)).body;
    const json = await t.request(
      'PATCH',
      `${PERSONS}/pat`,
      [
        { op: 'test', path: '/spec/age', value: 10 },
        { op: 'replace', path: '/spec/age', value: 11 },
        { op: 'add', path: '/metadata/labels/example.com~1b', value: '2' },
      ],
      { 'content-type': 'application/json-patch+json' },
    );
    expect(json.status).toBe(200);
    expect(json.body.spec.age).toBe(11);
    expect(json.body.metadata.labels).toEqual({ 'example.com/a': '1', 'example.com/b': '2' });
    expect(json.body.metadata.version).toBe(settled.metadata.version + 1);

    const failedTest = await t.request('PATCH', `${PERSONS}/pat`, [{ op: 'test', path: '/spec/age', value: 10 }], {
      'content-type': 'application/json-patch+json',
    });
    expect(failedTest.status).toBe(409);

    const merge = await t.request(
      'PATCH',
      `${PERSONS}/pat`,
      { metadata: { labels: { 'example.com/a': null } }, spec: { gender: 'MALE' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(merge.status).toBe(200);
    expect(merge.body.metadata.labels).toEqual({ 'example.com/b': '2' });
    expect(merge.body.spec).toMatchObject({ age: 11, gender: 'MALE' });
    const byLabel = await t.request('GET', `${PERSONS}?labelSelector=example.com/a`);
    expect(byLabel.body.items.map((o: any) => o.metadata.name)).not.toContain('pat');
  });

  it('validates nested objects with the path of the violation', async () => {
    const response = await t.request(
      'POST',
      PERSONS,
      person('nest', {
        otherPerson: {
          apiVersion: 'people.svc.run/v1alpha1',
          kind: 'Person',
          metadata: { name: 'inner' },
          spec: { age: 200 },
        },
      }),
    );
    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual(expect.objectContaining({ path: '/spec/otherPerson/spec/age' }));
  });

  it('answers the custom stats API from the index', async () => {
    const before = (await t.request('GET', '/apis/console.api.people.svc.run/v1alpha1/stats')).body;
    await t.request('POST', PERSONS, person('stat-m', { gender: 'MALE', name: 'Stat M' }));
    const after = await t.request('GET', '/apis/console.api.people.svc.run/v1alpha1/stats');
    expect(after.status).toBe(200);
    expect(after.body.total).toBe(before.total + 1);
    expect(after.body.byGender.MALE).toBe(before.byGender.MALE + 1);
    expect(after.body.byGender.FEMALE).toBe(before.byGender.FEMALE);
    const all = (await t.request('GET', PERSONS)).body;
    expect(after.body.total).toBe(all.total);
  });

  it('deletes a collection by selector', async () => {
    for (const n of [1, 2, 3])
      await t.request(
        'POST',
        PERSONS,
        person(`dc-${n}`, { name: `DC ${n}` }, { 'example.com/batch': n < 3 ? 'old' : 'new' }),
      );
    const response = await t.request('DELETE', `${PERSONS}?labelSelector=example.com/batch=old`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ deleted: 2 });
    await peopleSettled(t);
    const left = await t.request('GET', `${PERSONS}?labelSelector=example.com/batch`);
    expect(left.body.items.map((o: any) => o.metadata.name)).toEqual(['dc-3']);
  });
});
