import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { BACKENDS, capturingLogger, PERSONS, person, startTestServer, type TestServer } from './harness.js';
import { watchWebSocket } from './watch-client.js';

const merge = { 'content-type': 'application/merge-patch+json' };

/** The people plugin's controller end to end: finalizer and status on create, status following spec, farewell on delete. */
describe.each(BACKENDS)('the people controller (%s)', (backend) => {
  let t: TestServer;
  const capture = capturingLogger('debug');
  beforeAll(async () => {
    t = await startTestServer({ backend, logger: capture.logger });
    await t.server.listen();
  });
  afterAll(() => t.close());

  const get = async (name: string) => (await t.request('GET', `${PERSONS}/${name}`)).body;

  it('fills status and holds a finalizer for the persons declared in extensions/', async () => {
    await eventually(async () => (await get('ada'))?.status?.ageGroup === 'adult', 'ada to get a status');
    const ada = await get('ada');
    expect(ada.metadata.finalizers).toEqual(['people.svc.run/farewell']);
    expect(ada.status.conditions).toEqual([
      expect.objectContaining({
        type: 'Ready',
        status: 'True',
        reason: 'AgeGroupComputed',
        lastTransitionTime: expect.any(String),
      }),
    ]);
  });

  it('answers a create with the farewell finalizer already held, and says farewell to a person deleted at once', async () => {
    const created = await t.request('POST', PERSONS, person('lea', { name: 'Lea', age: 8 }));
    expect(created.status).toBe(201);
    expect(created.body.metadata.finalizers).toEqual(['people.svc.run/farewell']);
    expect((await t.request('DELETE', `${PERSONS}/lea`)).status).toBe(200);
    await eventually(async () => (await t.request('GET', `${PERSONS}/lea`)).status === 404, 'lea to be removed');
    expect(capture.lines().filter((l) => l.msg === 'farewell, Lea')).toHaveLength(1);
  });

  it('holds the finalizer again when a user takes it off', async () => {
    expect((await t.request('POST', PERSONS, person('max', { name: 'Max', age: 30 }))).status).toBe(201);
    await eventually(async () => (await get('max'))?.status?.ageGroup === 'adult', 'max to get a status');
    const released = await t.request('PATCH', `${PERSONS}/max`, { metadata: { finalizers: null } }, merge);
    expect(released.status).toBe(200);
    expect(released.body.metadata.finalizers).toBeUndefined();
    await eventually(
      async () => (await get('max')).metadata.finalizers?.[0] === 'people.svc.run/farewell',
      'the controller to hold max again',
    );
  });

  it('runs the full cycle: create, status, spec change, delete, farewell, final DELETED', async () => {
    const listed = await t.request('GET', PERSONS);
    const watch = watchWebSocket(
      t.server.url!,
      `${PERSONS}?resourceVersion=${listed.body.metadata.resourceVersion}&fieldSelector=metadata.name=kim`,
      { headers: t.adminHeaders },
    );
    expect((await t.request('POST', PERSONS, person('kim', { name: 'Kim', age: 15 }))).status).toBe(201);
    await eventually(async () => (await get('kim')).status?.ageGroup === 'teen', 'kim to be a teen');
    const teen = await get('kim');
    expect(teen.metadata.finalizers).toEqual(['people.svc.run/farewell']);
    expect(teen.status.observedVersion).toBeLessThan(teen.metadata.version);

    // A user writes spec (the main route cannot touch status); the controller follows through the status subresource.
    const grown = await t.request(
      'PATCH',
      `${PERSONS}/kim`,
      { spec: { age: 40 }, status: { ageGroup: 'forged' } },
      merge,
    );
    expect(grown.status).toBe(200);
    expect(grown.body.status.ageGroup).toBe('teen');
    await eventually(async () => (await get('kim')).status?.ageGroup === 'adult', 'kim to be an adult');
    const adult = await get('kim');
    expect(adult.status.observedVersion).toBe(grown.body.metadata.version);
    expect(adult.status.conditions[0].message).toBe('Kim is in age group adult');

    const deleting = await t.request('DELETE', `${PERSONS}/kim`);
    expect(deleting.body.metadata.deletionTimestamp).toBeTruthy();
    await watch.until((e) => e.some((x) => x.type === 'DELETED'), 'the final DELETED');
    expect((await t.request('GET', `${PERSONS}/kim`)).status).toBe(404);
    const types = watch.events.map((e) => e.type);
    expect(types[0]).toBe('ADDED');
    expect(types[types.length - 1]).toBe('DELETED');
    expect(types.slice(1, -1).every((type) => type === 'MODIFIED')).toBe(true);
    const farewells = capture.lines().filter((l) => l.msg === 'farewell, Kim');
    expect(farewells).toHaveLength(1);
    watch.close();
  });
});
