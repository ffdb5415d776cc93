// `npm run bench:million`: svc holding a million persons. It reports, each beside its baseline from the same run:
// boot to serving (indexes built from the stored objects, then read from the snapshot the first stop wrote) and the
// controllers' first full pass; resident memory per person against its JSON size; get-one and
// a filtered, sorted page (wrk, 50 connections, p50 and p99, each after a 2 s warm-up) against a bare Fastify GET; a watch's initial list (a
// watch without resourceVersion: every person as ADDED); and a deletecollection of 100,000 persons through the people
// controller's finalizer, with the log lines it wrote.
//
// The persons are written through svc's own store interface (as `svc import` writes), copies of a person the server
// created and reconciled itself: a million creates over HTTP would take this machine six minutes before measuring.
// With --postgres, svc runs on PostgreSQL (SVC_TEST_DATABASE_URL or the local `test` database, a schema of its own,
// dropped at the end) instead of the embedded SQLite.
// Usage: node bench/million.js [--persons 1000000] [--duration 5] [--postgres]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openStore } from '../packages/server/dist/store/open-store.js';
import { nextStatus } from '../plugins/people/dist/reconciler.js';
import { adminToken, arg, hasWrk, readMetrics, rssOf, sleep, startProcess, startSvc, wrkGets } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PERSONS = arg('persons', 1_000_000);
const DURATION = arg('duration', 5);
const POSTGRES = process.argv.includes('--postgres');
const DATABASE_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `bench_million_${process.pid}`;
/** Where the store is: the data directory's SQLite, or this run's PostgreSQL schema (another for the empty server). */
const storeEnv = POSTGRES ? { SVC_DATABASE_URL: DATABASE_URL, SVC_DATABASE_SCHEMA: SCHEMA } : {};
const emptyEnv = POSTGRES ? { SVC_DATABASE_URL: DATABASE_URL, SVC_DATABASE_SCHEMA: `${SCHEMA}_empty` } : {};
const BASE = '/apis/people.svc.run/v1alpha1/persons';
const RESOURCE = 'people.svc.run/persons';
const DELETED_TEAMS = ['team-0', 'team-1', 'team-2', 'team-3', 'team-4'];
if (!hasWrk) {
  console.log('bench:million needs wrk (apt-get install -y wrk)');
  process.exit(1);
}
const line = (name, value, unit, extra = '') => console.log(`${name.padEnd(60)} ${value.padStart(10)} ${unit}${extra}`);
const pct = (value, baseline) => `  (${((value / baseline) * 100).toFixed(1)}% of ${baseline.toFixed(0)})`;
const metric = async (url, auth, series) => (await readMetrics(url, auth))(series);
const PEOPLE_QUEUE = 'workqueue_depth{name="person-status",owner="plugin:people"}';
const PEOPLE_BUSY = 'controller_runtime_active_workers{controller="person-status",owner="plugin:people"}';
const STORED = 'apiserver_storage_objects{resource="persons.people.svc.run"}';

async function waitUntil(condition, pollMs = 100) {
  while (!(await condition())) await sleep(pollMs);
}

/** A person the server made: created over HTTP, then reconciled (finalizer and status). */
async function templatePerson(dataDir) {
  const svc = await startSvc(dataDir, undefined, storeEnv);
  const auth = { ...(await adminToken(svc.url)), 'content-type': 'application/json' };
  const body = {
    apiVersion: 'people.svc.run/v1alpha1',
    kind: 'Person',
    metadata: { name: 'template', labels: { 'people.svc.run/team': 'team-x' } },
    spec: { name: 'Template', age: 42, gender: 'FEMALE' },
  };
  const created = await fetch(`${svc.url}${BASE}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
  if (created.status !== 201) throw new Error(`template: ${created.status}`);
  let person;
  await waitUntil(async () => {
    person = await (await fetch(`${svc.url}${BASE}/template`, { headers: auth })).json();
    return person.status?.ageGroup !== undefined;
  });
  await svc.stop();
  return person;
}

/** Writes `count` persons through the store, `inFlight` at a time so the group commit batches them. */
async function seed(dataDir, template, count, inFlight = 2000) {
  const store = await openStore(
    POSTGRES ? { dataDir, databaseUrl: DATABASE_URL, schema: SCHEMA, create: false } : { dataDir, create: false },
  );
  const now = new Date(template.metadata.creationTimestamp);
  const genders = ['MALE', 'FEMALE'];
  let bytes = 0;
  try {
    for (let start = 0; start < count; start += inFlight) {
      const writes = [];
      for (let n = start; n < Math.min(count, start + inFlight); n++) {
        const metadata = { ...template.metadata, name: `p-${n}`, uid: randomUUID() };
        metadata.labels = { 'people.svc.run/team': `team-${n % 50}` };
        const person = { ...template, metadata, spec: { name: `Person ${n}`, age: n % 151, gender: genders[n % 2] } };
        person.status = nextStatus({ ...person, status: undefined }, now);
        person.status.observedVersion = template.status.observedVersion;
        writes.push(
          store.create(RESOURCE, metadata.name, (revision) => {
            metadata.resourceVersion = String(revision);
            const encoded = Buffer.from(JSON.stringify(person));
            bytes += encoded.length;
            return encoded;
          }),
        );
      }
      await Promise.all(writes);
    }
  } finally {
    await store.close();
  }
  return bytes / count;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-million-'));
try {
  const where = POSTGRES ? `PostgreSQL (schema ${SCHEMA})` : 'SQLite';
  console.log(`svc with ${PERSONS} persons on ${where}; ${DURATION} s per load run, 50 connections (wrk)\n`);
  const baseline = await startProcess(process.execPath, [path.join(root, 'bench/baseline-server.js')]);
  wrkGets(`${baseline.url}/doc/x`, 2); // warm-up, as for every read below
  const bare = wrkGets(`${baseline.url}/doc/x`, DURATION);
  await baseline.stop();
  line(
    'baseline: bare Fastify GET of a 1 KB JSON from a Map',
    bare.rps.toFixed(0),
    'req/s',
    `  p50 ${bare.p50Ms} ms, p99 ${bare.p99Ms} ms`,
  );

  const empty = await startSvc(path.join(dataDir, 'empty'), undefined, emptyEnv);
  await sleep(1000);
  const emptyRss = rssOf(empty.child.pid);
  await empty.stop();

  const full = path.join(dataDir, 'full');
  const template = await templatePerson(full);
  let started = performance.now();
  const avgJson = await seed(full, template, PERSONS);
  line(`seeding ${PERSONS} persons through the store`, ((performance.now() - started) / 1000).toFixed(1), 's');

  const env = { SVC_LOG_LEVEL: 'info', SVC_ACCESS_LOG: 'false', ...storeEnv };
  // The first start builds the indexes from the stored objects (the seed wrote no snapshot); stopping writes the
  // index snapshot, which the second start reads back instead.
  const first = await startSvc(full, undefined, env);
  line('boot to serving, indexes built from the stored objects', (first.bootMs / 1000).toFixed(2), 's');
  let auth = await adminToken(first.url);
  const memoryLine = async (svc, how) => {
    await sleep(1000);
    const perPerson = (rssOf(svc.child.pid) - emptyRss) / PERSONS;
    line(
      `resident memory per person / its JSON size (${how})`,
      (perPerson / avgJson).toFixed(2),
      'x',
      `  (${perPerson.toFixed(0)} bytes per person, JSON ${avgJson.toFixed(0)} bytes; target <= 2x)`,
    );
  };
  started = performance.now();
  await waitUntil(
    async () =>
      (await metric(first.url, auth, PEOPLE_QUEUE)) === 0 && (await metric(first.url, auth, PEOPLE_BUSY)) === 0,
  );
  line(
    "  then the people controller's first pass over every person",
    ((performance.now() - started) / 1000).toFixed(1),
    's',
  );
  await memoryLine(first, 'built from the objects');
  started = performance.now();
  await first.stop();
  line('graceful stop, writing the index snapshot', ((performance.now() - started) / 1000).toFixed(2), 's');

  const svc = await startSvc(full, undefined, env);
  const logLines = [];
  svc.child.stdout.on('data', (chunk) => logLines.push(...String(chunk).split('\n').filter(Boolean)));
  line(
    'boot to serving, indexes read from the snapshot',
    (svc.bootMs / 1000).toFixed(2),
    's',
    `  (${((svc.bootMs / first.bootMs) * 100).toFixed(0)}% of the build from the objects; target <= 10 s)`,
  );
  for (const l of logLines.filter((l) => l.includes('snapshot'))) console.log(`  log: ${JSON.parse(l).msg}`);
  auth = await adminToken(svc.url);
  await waitUntil(
    async () => (await metric(svc.url, auth, PEOPLE_QUEUE)) === 0 && (await metric(svc.url, auth, PEOPLE_BUSY)) === 0,
  );
  await memoryLine(svc, 'read from the snapshot');

  const reads = [
    ['GET one person', `${BASE}/p-${Math.floor(PERSONS / 2) + 7}`, 50],
    [
      'page: gender=FEMALE, sort age desc, size 20',
      `${BASE}?fieldSelector=spec.gender=FEMALE&sort=spec.age,desc&size=20`,
      15,
    ],
  ];
  for (const [name, url, target] of reads) {
    // A warm-up first: the first seconds after a boot with a million objects carry the boot's garbage collection
    // (p99 204 ms against 11 ms in the next run, same build).
    wrkGets(`${svc.url}${url}`, 2, auth);
    const run = wrkGets(`${svc.url}${url}`, DURATION, auth);
    line(
      name,
      run.rps.toFixed(0),
      'req/s',
      `${pct(run.rps, bare.rps)} target >= ${target}%; mean ${run.meanMs} ms, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms (${(run.p99Ms / run.meanMs).toFixed(1)}x mean)`,
    );
  }

  started = performance.now();
  const watched = await fetch(`${svc.url}${BASE}?watch=true`, { headers: auth });
  let events = 0;
  let firstAt;
  const decoder = new TextDecoder();
  for await (const chunk of watched.body) {
    firstAt ??= performance.now();
    for (const c of decoder.decode(chunk, { stream: true })) if (c === '\n') events++;
    if (events >= PERSONS) break;
  }
  const watchS = (performance.now() - started) / 1000;
  line(
    "a watch's initial list (every person as ADDED)",
    watchS.toFixed(1),
    's',
    `  (${(PERSONS / watchS).toFixed(0)} events/s; first after ${(firstAt - started).toFixed(0)} ms)`,
  );

  const before = await metric(svc.url, auth, STORED);
  const linesBefore = logLines.length;
  started = performance.now();
  const selector = encodeURIComponent(`people.svc.run/team in (${DELETED_TEAMS.join(',')})`);
  const deleted = await fetch(`${svc.url}${BASE}?labelSelector=${selector}`, { method: 'DELETE', headers: auth });
  if (deleted.status !== 200) throw new Error(`deletecollection: ${deleted.status} ${await deleted.text()}`);
  const answeredS = (performance.now() - started) / 1000;
  const expected = (PERSONS / 50) * DELETED_TEAMS.length;
  await waitUntil(async () => (await metric(svc.url, auth, STORED)) <= before - expected, 250);
  const goneS = (performance.now() - started) / 1000;
  const lines = logLines.slice(linesBefore);
  line(
    `deletecollection of ${expected} persons: answered`,
    answeredS.toFixed(1),
    's',
    `; all removed after ${goneS.toFixed(1)} s (farewell and finalizer each)`,
  );
  console.log(
    `  log lines meanwhile: ${lines.length} (${lines.filter((l) => l.includes('deleting')).length} progress lines)`,
  );
  await svc.stop();
} finally {
  if (POSTGRES && !process.env.KEEP) {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    for (const schema of [SCHEMA, `${SCHEMA}_empty`]) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
  if (!process.env.KEEP) rmSync(dataDir, { recursive: true, force: true });
  else console.log(dataDir);
}
