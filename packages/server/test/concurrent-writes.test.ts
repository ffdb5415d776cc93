import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PERSONS, peopleSettled, person, startTestServer, type TestServer } from './harness.js';

/** Writes race each other: unique values and optimistic locking hold, and the indexes end up matching the store. */
describe.each(BACKENDS)('concurrent writes (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  });
  afterAll(() => t.close());

  it('lets exactly one of many creates take a unique value', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.request('POST', PERSONS, person(`race-${i}`, { name: 'The One' }))),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(19);
    const listed = await t.request('GET', `${PERSONS}?fieldSelector=spec.name=The%20One`);
    expect(listed.body.total).toBe(1);
    expect(listed.body.items).toHaveLength(1);
  });

  it('lets exactly one of many updates with the same version win', async () => {
    await t.request('POST', PERSONS, person('locked', { age: 1 }));
    // Racing the people controller's own writes is not what this test is about: let it finish first.
    await peopleSettled(t);
    const created = (await t.request('GET', `${PERSONS}/locked`)).body;
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.request('PUT', `${PERSONS}/locked`, { ...created, spec: { ...created.spec, age: 10 + i } }),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(9);
    const winner = responses.find((r) => r.status === 200)!.body;
    const stored = (await t.request('GET', `${PERSONS}/locked`)).body;
    expect(stored.spec.age).toBe(winner.spec.age);
    expect(stored.metadata.version).toBe(created.metadata.version + 1);
    const byAge = await t.request('GET', `${PERSONS}?fieldSelector=spec.age=${winner.spec.age}`);
    expect(byAge.body.items.map((o: any) => o.metadata.name)).toContain('locked');
    const oldAge = await t.request('GET', `${PERSONS}?fieldSelector=spec.age=1`);
    expect(oldAge.body.items.map((o: any) => o.metadata.name)).not.toContain('locked');
  });

  it('keeps every index in step with the store under many concurrent creates, updates and deletes', async () => {
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        t.request('POST', PERSONS, person(`mix-${i}`, { name: `Mix ${i}`, age: i }, { 'example.com/mix': 'yes' })),
      ),
    );
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 3 === 0
          ? t.request('DELETE', `${PERSONS}/mix-${i}`)
          : t.request(
              'PATCH',
              `${PERSONS}/mix-${i}`,
              { spec: { age: 50 + i } },
              { 'content-type': 'application/merge-patch+json' },
            ),
      ),
    );
    // Deleted persons stay until the people controller has dropped its finalizer.
    await peopleSettled(t);
    const listed = (await t.request('GET', `${PERSONS}?labelSelector=example.com/mix&sort=spec.age,asc`)).body;
    expect(listed.total).toBe(40);
    expect(listed.items.map((o: any) => o.spec.age)).toEqual(
      Array.from({ length: 60 }, (_, i) => i)
        .filter((i) => i % 3 !== 0)
        .map((i) => 50 + i),
    );
  });
});
