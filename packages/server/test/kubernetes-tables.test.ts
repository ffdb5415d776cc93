import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';
import { watchHttp } from './watch-client.js';

/** What kubectl 1.32 sends for `kubectl get` and `kubectl get -w`. */
const TABLE_ACCEPT =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** The people plugin's declared columns, between Name and Age. */
const PERSON_COLUMNS = ['Name', 'Full Name', 'Years', 'Gender', 'Age Group', 'Age'];

/**
 * The meta.k8s.io Table (issue 15 item 3), as kubectl asks for it: on a list, a get and a watch, with the people
 * model's declared printer columns.
 */
describe.each(BACKENDS)('tables (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  beforeAll(async () => {
    t = await startTestServer({ backend });
    base = await t.server.listen();
    for (const [name, age] of [
      ['ada2', 36],
      ['bob', 17],
    ] as const) {
      expect((await t.request('POST', PERSONS, person(name, { age }, { table: 'yes' }))).status).toBe(201);
    }
  }, 60_000);
  afterAll(() => t.close());

  it('answers a list as a Table with the declared columns and partial metadata per row', async () => {
    const list = await t.request('GET', `${PERSONS}?labelSelector=table&sort=metadata.name,asc`, undefined, {
      accept: TABLE_ACCEPT,
    });
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(list.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(list.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(list.body.columnDefinitions.map((c: any) => c.name)).toEqual(PERSON_COLUMNS);
    expect(list.body.columnDefinitions[2]).toEqual({
      name: 'Years',
      type: 'integer',
      format: '',
      description: "The person's age in years",
      priority: 0,
    });
    expect(list.body.columnDefinitions[4].priority).toBe(1);
    expect(list.body.rows.map((r: any) => r.cells.slice(0, 4))).toEqual([
      ['ada2', 'Person ada2', 36, 'FEMALE'],
      ['bob', 'Person bob', 17, 'FEMALE'],
    ]);
    // Age: how long ago, as kubectl prints it (seconds for a fresh object).
    expect(list.body.rows[0].cells[5]).toMatch(/^\d+s$/);
    expect(list.body.rows[0].object).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'ada2' },
    });
    expect(list.body.rows[0].object.spec).toBeUndefined();
  });

  it('pages a Table with limit and continue', async () => {
    const first = await t.request('GET', `${PERSONS}?labelSelector=table&limit=1&sort=metadata.name,asc`, undefined, {
      accept: TABLE_ACCEPT,
    });
    expect(first.body.rows.map((r: any) => r.cells[0])).toEqual(['ada2']);
    expect(first.body.metadata.remainingItemCount).toBe(1);
    const next = await t.request(
      'GET',
      `${PERSONS}?labelSelector=table&limit=1&sort=metadata.name,asc&continue=${first.body.metadata.continue}`,
      undefined,
      { accept: TABLE_ACCEPT },
    );
    expect(next.body.rows.map((r: any) => r.cells[0])).toEqual(['bob']);
    expect(next.body.metadata.continue).toBeUndefined();
  });

  it('answers one object as a one-row Table, in v1beta1 or with the whole object when asked', async () => {
    const one = await t.request('GET', `${PERSONS}/bob?includeObject=Object`, undefined, {
      accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
    });
    expect(one.body.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(one.body.rows).toHaveLength(1);
    expect(one.body.rows[0].cells.slice(0, 4)).toEqual(['bob', 'Person bob', 17, 'FEMALE']);
    expect(one.body.rows[0].object).toMatchObject({ kind: 'Person', spec: { age: 17 } });
    const none = await t.request('GET', `${PERSONS}/bob?includeObject=None`, undefined, { accept: TABLE_ACCEPT });
    expect(none.body.rows[0].object).toBeUndefined();
    const bad = await t.request('GET', `${PERSONS}/bob?includeObject=All`, undefined, { accept: TABLE_ACCEPT });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/includeObject/);
  });

  it('answers objects to clients that prefer plain JSON', async () => {
    const plain = await t.request('GET', `${PERSONS}/bob`, undefined, {
      accept: 'application/json,application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(plain.body.kind).toBe('Person');
  });

  it('sends each watch event as a one-row Table, the columns only in the first', async () => {
    const watch = watchHttp(base, `${PERSONS}?watch=true&labelSelector=table`, {
      headers: { ...t.adminHeaders, accept: TABLE_ACCEPT },
    });
    try {
      await watch.until((events) => events.length >= 2, 'the two people');
      expect((await t.request('POST', PERSONS, person('cyd', { age: 50 }, { table: 'yes' }))).status).toBe(201);
      await watch.until((events) => events.some((e) => e.object.rows?.[0]?.cells[0] === 'cyd'), 'cyd');
      const [first, ...later] = watch.events;
      expect(first!.type).toBe('ADDED');
      expect(first!.object.kind).toBe('Table');
      expect(first!.object.columnDefinitions.map((c: any) => c.name)).toEqual(PERSON_COLUMNS);
      for (const event of later) {
        expect(event.object.kind).toBe('Table');
        expect(event.object.columnDefinitions).toBeUndefined();
        expect(event.object.rows).toHaveLength(1);
      }
      const cyd = later.find((e) => e.object.rows[0].cells[0] === 'cyd')!;
      expect(cyd.type).toBe('ADDED');
      expect(cyd.object.rows[0].cells.slice(0, 4)).toEqual(['cyd', 'Person cyd', 50, 'FEMALE']);
      expect(cyd.object.rows[0].object.kind).toBe('PartialObjectMetadata');
    } finally {
      watch.close();
    }
  });
});
