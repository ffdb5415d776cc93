/**
 * Two replicas in network namespaces of the test's own, on a PostgreSQL cluster of the test's own (network-lab.ts).
 * The leader's path to PostgreSQL is cut silently (packets dropped, no reset), then healed. Run with
 * `npm run test:partitions` (root, ip, nft and PostgreSQL's server binaries; README "Running several replicas").
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../eventually.js';
import { PEOPLE_PLUGINS, PERSONS, person, TEST_ADMIN } from '../harness.js';
import { type ServeProcess, spawnServe } from '../serve-process.js';
import { type WatchEvent, watchHttp } from '../watch-client.js';
import { labUnavailable, type NetworkLab, startLab } from './network-lab.js';

const SCHEMA = `partition_${process.pid}`;
const unavailable = labUnavailable();
if (unavailable) console.warn(`partition tests skipped: ${unavailable}`);

interface Replica {
  name: string;
  served: ServeProcess;
  url: string;
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A JSON request that gives up after `ms` (a request to a cut-off replica may hang): undefined then. */
async function call(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  ms = 30_000,
) {
  try {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(ms),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    return undefined;
  }
}

describe.skipIf(unavailable !== undefined)('a leader cut off from PostgreSQL silently', () => {
  let lab: NetworkLab;
  const replicas: Record<string, Replica> = {};
  let admin: Record<string, string>;

  const start = async (name: string) => {
    const link = lab.links[name]!;
    const served = await spawnServe(
      {
        SVC_HOST: link.address,
        SVC_DATABASE_URL: link.databaseUrl,
        SVC_DATABASE_SCHEMA: SCHEMA,
        SVC_REPLICA_ID: name,
        SVC_PLUGINS_DIR: PEOPLE_PLUGINS,
        SVC_LOG_FORMAT: 'json',
        SVC_ACCESS_LOG: 'off',
        SVC_ADMIN_PASSWORD: TEST_ADMIN.password,
      },
      90_000,
      undefined,
      { prefix: link.prefix },
    );
    replicas[name] = { name, served, url: served.url };
    return replicas[name]!;
  };

  beforeAll(async () => {
    lab = await startLab(['a', 'b']);
    await start('a');
    await start('b');
    const login = await fetch(`${replicas.b!.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(TEST_ADMIN),
    });
    const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
    const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))!.slice('XSRF-TOKEN='.length);
    admin = { cookie: cookies.join('; '), 'x-xsrf-token': xsrf };
  }, 180_000);

  afterAll(async () => {
    for (const replica of Object.values(replicas)) {
      // Each replica's log, for a failure's diagnosis.
      await writeFile(path.join(tmpdir(), `svc-partition-${replica.name}.log`), replica.served.output());
      await replica.served.kill();
    }
    await lab?.close();
  }, 60_000);

  it('hands the lease over within it, loses no acknowledged write and reconciles nothing twice', async () => {
    const { a, b } = replicas as Record<'a' | 'b', Replica>;
    const leases = () =>
      query<{ holder: string; epoch: string }>(
        lab.databaseUrl,
        `SELECT holder, epoch FROM ${SCHEMA}.leases WHERE name = 'controllers'`,
      );
    expect(await leases()).toEqual([{ holder: 'a', epoch: '1' }]);

    // Every event of persons, seen from b (which keeps its path) from before the first write.
    const list = await call(b.url, 'GET', PERSONS, admin);
    const watch = watchHttp(b.url, `${PERSONS}?watch=true&resourceVersion=${list!.body.metadata.resourceVersion}`, {
      headers: admin,
    });
    await watch.response;
    const reconciled = (name: string) => (events: WatchEvent[]) =>
      events.some(
        (e) => e.object.metadata?.name === name && (e.object as { status?: { ageGroup?: string } }).status?.ageGroup,
      );

    // Before the cut: a leads and reconciles.
    const acknowledged = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const created = await call(b.url, 'POST', PERSONS, admin, person(`before-${i}`, { age: 30 }));
      expect(created?.status).toBe(201);
      acknowledged.add(`before-${i}`);
    }
    await watch.until(reconciled('before-4'), 'the leader reconciles before the cut');

    // Writes keep coming through both replicas while the link is cut; those answered 201 must survive.
    let writing = true;
    const writer = async (replica: Replica) => {
      for (let i = 0; writing; i++) {
        const name = `${replica.name}-write-${i}`;
        const created = await call(replica.url, 'POST', PERSONS, admin, person(name, { age: 40 }), 40_000);
        if (created?.status === 201) acknowledged.add(name);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const writers = [writer(a), writer(b)];
    await new Promise((r) => setTimeout(r, 500));

    const cutAt = Date.now();
    lab.cut('a');
    // Made after the cut through b: only a leader that reaches PostgreSQL can reconcile it.
    expect((await call(b.url, 'POST', PERSONS, admin, person('after-cut', { age: 70 })))?.status).toBe(201);
    acknowledged.add('after-cut');
    await watch.until(reconciled('after-cut'), 'the new leader reconciles', 60_000);
    const takeoverMs = Date.now() - cutAt;
    // The takeover happened with a still cut off: b holds the lease, in the next term.
    expect(await leases()).toEqual([{ holder: 'b', epoch: '2' }]);
    console.log(`partition: ${takeoverMs} ms from the silent cut of the leader to the new leader's first reconcile`);

    // The cut-off replica stops taking traffic: it cannot tell what is current.
    const readyOfA = async () => (await call(a.url, 'GET', '/readyz', {}, undefined, 5_000))?.body;
    await eventually(async () => (await readyOfA())?.status === 503, 'a unready while cut off', 30_000);
    expect((await readyOfA())?.detail).toBe(
      'the store has not answered for a while: this replica cannot tell what is current',
    );

    // Healed: a follows again and does not take the lease back.
    lab.heal('a');
    writing = false;
    await Promise.all(writers);
    await eventually(
      async () => (await call(a.url, 'GET', '/readyz', {}))?.status === 200,
      'a ready after the heal',
      60_000,
    );
    expect(await leases()).toEqual([{ holder: 'b', epoch: '2' }]);

    // Every acknowledged write is stored, and both replicas list it.
    await eventually(
      async () => {
        const [onA, onB] = await Promise.all([call(a.url, 'GET', PERSONS, admin), call(b.url, 'GET', PERSONS, admin)]);
        const names = (r: typeof onA) =>
          new Set<string>(r?.body.items.map((i: { metadata: { name: string } }) => i.metadata.name));
        return [...acknowledged].every((name) => names(onA).has(name) && names(onB).has(name));
      },
      'every acknowledged write on both replicas',
      30_000,
    );

    // Each person's status was written once: a second leader's reconcile (or the old one's late write) would add a
    // second status write for the same spec.
    await eventually(
      async () => [...acknowledged].every((name) => reconciled(name)(watch.events)),
      'every person reconciled',
      60_000,
    );
    const statusWrites = new Map<string, number>();
    for (const event of watch.events) {
      if (event.type !== 'MODIFIED') continue;
      const name = event.object.metadata.name as string;
      statusWrites.set(name, (statusWrites.get(name) ?? 0) + 1);
    }
    const twice = [...statusWrites].filter(([, writes]) => writes !== 1);
    expect(twice).toEqual([]);
    expect([...acknowledged].filter((name) => !statusWrites.has(name))).toEqual([]);
    watch.close();
  }, 240_000);
});
