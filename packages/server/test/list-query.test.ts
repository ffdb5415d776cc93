import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, person, startTestServer, type TestServer } from './harness.js';

const PERSONS = '/apis/people.svc.run/v1alpha1/persons';

/** 30 persons with known ages, genders and labels, besides the three the plugin declares (ada, alan, grace). */
const seeded = Array.from({ length: 30 }, (_, i) => ({
  name: `q-${i + 1}`,
  age: (i * 7) % 31,
  gender: i % 3 === 0 ? 'MALE' : 'FEMALE',
  labels: {
    'example.com/team': ['red', 'green', 'blue'][i % 3]!,
    ...(i % 5 === 0 ? { 'example.com/lead': 'yes' } : {}),
  },
}));

describe.each(BACKENDS)('list with paging, sort and selectors (%s)', (backend) => {
  let t: TestServer;
  const names = async (query: string) => {
    const response = await t.request('GET', `${PERSONS}?${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body.items.map((o: any) => o.metadata.name) as string[];
  };

  beforeAll(async () => {
    t = await startTestServer({ backend });
    for (const p of seeded) {
      const response = await t.request(
        'POST',
        PERSONS,
        person(p.name, { name: `N ${p.name}`, age: p.age, gender: p.gender }, p.labels),
      );
      expect(response.status).toBe(201);
    }
  });
  afterAll(() => t.close());

  it('returns every object with no size, newest first, in the list envelope', async () => {
    const response = await t.request('GET', PERSONS);
    expect(response.body).toMatchObject({
      apiVersion: 'people.svc.run/v1alpha1',
      kind: 'PersonList',
      page: 1,
      size: 0,
      total: 33,
      first: true,
      last: true,
      hasNext: false,
      hasPrevious: false,
      totalPages: 1,
    });
    expect(Number(response.body.metadata.resourceVersion)).toBeGreaterThan(0);
    const stamps = response.body.items.map((o: any) => o.metadata.creationTimestamp);
    expect([...stamps].sort().reverse()).toEqual(stamps);
  });

  it('pages through matches', async () => {
    const page2 = await t.request(
      'GET',
      `${PERSONS}?labelSelector=example.com/team=red&sort=metadata.name,asc&page=2&size=4`,
    );
    expect(page2.body).toMatchObject({
      page: 2,
      size: 4,
      total: 10,
      first: false,
      last: false,
      hasNext: true,
      hasPrevious: true,
      totalPages: 3,
    });
    const red = seeded.filter((p) => p.labels['example.com/team'] === 'red').map((p) => p.name);
    const natural = [...red].sort((a, b) => Number(a.slice(2)) - Number(b.slice(2)));
    expect(page2.body.items.map((o: any) => o.metadata.name)).toEqual(natural.slice(4, 8));
    const beyond = await t.request('GET', `${PERSONS}?labelSelector=example.com/team=red&page=9&size=4`);
    expect(beyond.body).toMatchObject({ items: [], total: 10, hasNext: false, last: true });
  });

  it('sorts numerically on an indexed number, with the name ascending as tie-break', async () => {
    const all = seeded
      .map((p) => ({ name: p.name, age: p.age }))
      .concat([
        { name: 'ada', age: 36 },
        { name: 'alan', age: 41 },
        { name: 'grace', age: 85 },
      ]);
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, 'en', { numeric: true });
    const desc = [...all].sort((a, b) => b.age - a.age || byName(a, b)).map((p) => p.name);
    const asc = [...all].sort((a, b) => a.age - b.age || byName(a, b)).map((p) => p.name);
    expect(await names('sort=spec.age,desc')).toEqual(desc);
    expect(await names('sort=spec.age,ASC&size=3')).toEqual(asc.slice(0, 3));
    expect(await names('sort=spec.age&size=5&page=2')).toEqual(asc.slice(5, 10));
  });

  it('filters by every label selector form', async () => {
    const red = seeded.filter((p) => p.labels['example.com/team'] === 'red').map((p) => p.name);
    const leads = seeded.filter((p) => p.labels['example.com/lead']).map((p) => p.name);
    const sortByName = 'sort=metadata.name,asc';
    const sorted = (list: string[]) => [...list].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(await names(`labelSelector=example.com/team=red&${sortByName}`)).toEqual(sorted(red));
    expect(await names(`labelSelector=example.com/team==red&${sortByName}`)).toEqual(sorted(red));
    expect(await names(`labelSelector=example.com/lead&${sortByName}`)).toEqual(sorted(leads));
    const notLead = await names(`labelSelector=!example.com/lead&${sortByName}`);
    expect(notLead).toHaveLength(33 - leads.length);
    expect(notLead).toContain('ada');
    const notRed = await names(`labelSelector=example.com/team!=red`);
    expect(notRed).toHaveLength(33 - red.length);
    const inSet = await names(`labelSelector=${encodeURIComponent('example.com/team in (red,blue)')}`);
    expect(inSet).toHaveLength(20);
    expect(await names(`labelSelector=${encodeURIComponent('example.com/team=(red,blue)')}`)).toEqual(inSet);
    const notIn = await names(`labelSelector=${encodeURIComponent('example.com/team notin (red,blue)')}`);
    expect(notIn).toHaveLength(13);
    const both = await names(`labelSelector=example.com/team=red,example.com/lead&${sortByName}`);
    expect(both).toEqual(sorted(red.filter((n) => leads.includes(n))));
    const repeated = await names(`labelSelector=example.com/team=red&labelSelector=example.com/lead&${sortByName}`);
    expect(repeated).toEqual(both);
  });

  it('filters by field selectors on indexes, combined with label selectors', async () => {
    const males = seeded
      .filter((p) => p.gender === 'MALE')
      .map((p) => p.name)
      .concat(['alan']);
    const got = await names('fieldSelector=spec.gender=MALE');
    expect(got.sort()).toEqual(males.sort());
    expect((await names('fieldSelector=spec.gender!=MALE')).length).toBe(33 - males.length);
    expect(await names('fieldSelector=metadata.name=q-3')).toEqual(['q-3']);
    expect(await names('fieldSelector=name=q-3')).toEqual(['q-3']);
    expect((await names(`fieldSelector=${encodeURIComponent('spec.age=(0,7)')}`)).sort()).toEqual(
      seeded
        .filter((p) => p.age === 0 || p.age === 7)
        .map((p) => p.name)
        .sort(),
    );
    const redMales = seeded
      .filter((p) => p.gender === 'MALE' && p.labels['example.com/team'] === 'red')
      .map((p) => p.name);
    expect((await names('fieldSelector=spec.gender=MALE&labelSelector=example.com/team=red')).sort()).toEqual(
      redMales.sort(),
    );
    const total = (await t.request('GET', `${PERSONS}?fieldSelector=spec.gender=FEMALE&sort=spec.age,desc&size=5`))
      .body;
    expect(total.items).toHaveLength(5);
    expect(total.total).toBe(33 - males.length);
  });
});
