// `npm run bench:postgres`: svc's writes on PostgreSQL beside PostgreSQL's own, in one run.
//  1. creates/s of one svc (controllers on, as users run it), wrk with 50 connections, beside pgbench's autocommit
//     single-row inserts (16 clients) of a row the size of a stored person into a table with a primary key; the two
//     alternate `--rounds` times so that a machine shared with other work weighs on both alike (target ≥ 50%). Each
//     round also runs the same creates on an svc with the embedded SQLite store, which has no database server to
//     share the cores with: its main thread's CPU per create is what one svc process costs before any database work,
//     and bounds one process's rate whatever the store;
//  2. aggregate creates/s on 1, 2 and 3 replicas of one schema (wrk on each at once), each beside a pgbench run;
//  3. the store alone (its group commit, no HTTP, no controller): 64 writers each creating an object of a stored
//     person's size and updating it, in this process, beside pgbench (`--store-rounds`, 0 to skip);
//  4. the CPU time to write a group's values into its statement's text (33 stored persons, as a group of one svc
//     under wrk holds), svc's own encoding against pg's parameter encoding and literal quoting, which it replaced.
// Usage: node bench/postgres.js [--duration 5] [--rounds 2] [--replicas 3]
// SVC_BENCH_CLI=<another checkout>/packages/server/dist/cli.js runs that build instead (an A/B in the same conditions).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { prepareValue } from 'pg/lib/utils.js';
import {
  adminToken,
  arg,
  hasWrk,
  machineBusySeconds,
  postgresCpuSince,
  postgresCpuTimes,
  startPostgresReplica,
  startServe,
  wrkCreateRun,
  wrkInBackground,
} from './lib.js';

const DATABASE_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DURATION = arg('duration', 5);
const ROUNDS = arg('rounds', 2);
const REPLICAS = arg('replicas', 3);
const STORE_ROUNDS = arg('store-rounds', 2);
const PERSONS = '/apis/people.svc.run/v1alpha1/persons';
/** The server build the store-alone and statement-text sections import: SVC_BENCH_CLI's, else this checkout's. */
const DIST = path.dirname(process.env.SVC_BENCH_CLI || path.resolve('packages/server/dist/cli.js'));
if (!hasWrk) {
  console.log('bench:postgres needs wrk (apt-get install -y wrk) and pgbench (postgresql-contrib)');
  process.exit(1);
}

const schema = `bench_postgres_${randomBytes(4).toString('hex')}`;
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-postgres-'));
const db = new pg.Client({ connectionString: DATABASE_URL });
await db.connect();
const servers = [];

/** `svc serve` on the bench's schema, as replica `id`; resolves once it listens. */
function startReplica(id) {
  const { child, listening } = startPostgresReplica({
    id,
    dataDir: path.join(work, id),
    databaseUrl: DATABASE_URL,
    schema,
    cli: process.env.SVC_BENCH_CLI || undefined,
  });
  servers.push(child);
  return listening;
}

/**
 * `svc serve` on the embedded SQLite store (the build SVC_BENCH_CLI names, else this checkout's), controllers on: the
 * same server with no database server beside it.
 */
async function startEmbedded() {
  const cli = process.env.SVC_BENCH_CLI || path.resolve('packages/server/dist/cli.js');
  const server = await startServe(cli, path.join(work, 'embedded'), path.resolve('plugins'), { SVC_ACCESS_LOG: 'off' });
  servers.push(server.child);
  return server;
}

/** A wrk script creating persons named `<prefix>-<n>`, so that runs and replicas never collide. */
function createScript(prefix) {
  const script = path.join(work, `${prefix}.lua`);
  writeFileSync(
    script,
    `local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
function request()
  counter = counter + 1
  local body = string.format('{"apiVersion":"people.svc.run/v1alpha1","kind":"Person","metadata":{"name":"${prefix}-%d","labels":{"people.svc.run/team":"team-%d"}},"spec":{"name":"${prefix} %d","age":%d,"gender":"FEMALE"}}', counter, counter % 50, counter, counter % 100)
  return wrk.format(nil, "${PERSONS}", nil, body)
end
`,
  );
  return script;
}

/** Creates/s on each of `targets` at once (wrk, 32 connections each), summed; failed creates do not count. */
function createsOn(targets, auth, round) {
  const runs = targets.map((replica) =>
    wrkInBackground(replica.url, DURATION, { script: createScript(`c${round}-${replica.id}`), headers: auth }).then(
      (run) => run.succeededRps,
    ),
  );
  return Promise.all(runs).then((rates) => rates.reduce((a, b) => a + b, 0));
}

/** pgbench: autocommit single-row inserts of `bytes`-byte rows into a table with a text primary key, 16 clients. */
function pgInsertRate(bytes) {
  const busy = machineBusySeconds();
  const script = path.join(work, 'insert.sql');
  writeFileSync(
    script,
    `INSERT INTO ${schema}.bench_inserts (name, value) VALUES (md5(random()::text || clock_timestamp()::text), ` +
      `decode(repeat('ab', ${bytes}), 'hex'));\n`,
  );
  const out = execFileSync(
    'pgbench',
    ['-n', '-c', '16', '-j', '2', '-T', String(DURATION), '-f', script, DATABASE_URL],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(out)[1]);
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(out)[1]);
  return { tps, cpuMicros: ((machineBusySeconds() - busy) / transactions) * 1e6 };
}

/**
 * Writes/s of the PostgreSQL store opened in this process (the build `SVC_BENCH_CLI` names, else this checkout's):
 * 64 writers for DURATION seconds, each creating a `bytes`-byte JSON object and then updating it, as a create and the
 * controller's status write do.
 */
async function storeWrites(bytes, round) {
  const { openPostgresStore } = await import(path.join(DIST, 'store/postgres.js'));
  const store = await openPostgresStore({ connectionString: DATABASE_URL, schema: `${schema}_store` });
  const encode = (text) => (revision) =>
    Buffer.from(JSON.stringify({ metadata: { resourceVersion: String(revision) }, text: text.padEnd(bytes - 40) }));
  let written = 0;
  let next = 0;
  const busy = machineBusySeconds();
  const started = performance.now();
  const end = started + DURATION * 1000;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (performance.now() < end) {
        const name = `s${round}-${next++}`;
        const created = await store.create('bench/things', name, encode(name));
        await store.update('bench/things', name, created.revision, encode(`${name} updated`));
        written += 2;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuMicros = ((machineBusySeconds() - busy) / written) * 1e6;
  await store.close();
  return { rate: written / seconds, cpuMicros };
}

/**
 * Microseconds of CPU to write `values` as one bytea[] literal with `encode`, over about a second: the figure the
 * store's statement text costs per group, against a baseline encoding in the same process.
 */
function encodeMicros(encode, values, ms = 1000) {
  let runs = 0;
  let bytes = 0;
  const started = process.cpuUsage();
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Encoded to UTF-8 as the socket write does, so a cheaper string that is dearer to encode would show.
    bytes += Buffer.byteLength(encode(values));
    runs++;
  }
  const { user, system } = process.cpuUsage(started);
  return { micros: (user + system) / runs, bytes: bytes / runs };
}

/** pg's encoding, as the store wrote arrays before: each element escaped, then the array, then the literal. */
function pgEncoding(values) {
  const items = values.map((v) => v.toString('utf8').replaceAll('\\', '\\\\'));
  return pg.escapeLiteral(prepareValue(items));
}

const pct = (a, b) => `${((a / b) * 100).toFixed(1)}%`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  const r1 = await startReplica('r1');
  const auth = await adminToken(r1.url);
  // The size of a stored person, for pgbench's rows.
  wrkCreateRun(r1.url, 1, createScript('warm'), auth);
  const { rows } = await db.query(
    `SELECT avg(octet_length(value))::int AS bytes FROM ${schema}.objects WHERE resource LIKE '%persons'`,
  );
  const bytes = rows[0].bytes;
  await db.query(`CREATE TABLE ${schema}.bench_inserts (name text PRIMARY KEY, value bytea NOT NULL)`);

  const embedded = ROUNDS > 0 ? await startEmbedded() : undefined;
  const embeddedAuth = embedded && (await adminToken(embedded.url));
  if (embedded) wrkCreateRun(embedded.url, 1, createScript('warm-embedded'), embeddedAuth);
  const ratios = [];
  const ceilings = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const pg = pgInsertRate(bytes);
    const busy = machineBusySeconds();
    const postgresBusy = postgresCpuTimes();
    const { rps, total, mainCpuMicrosPerCreate } = wrkCreateRun(
      r1.url,
      DURATION,
      createScript(`one${round}`),
      auth,
      r1.pid,
    );
    const machineMicrosPerCreate = ((machineBusySeconds() - busy) / total) * 1e6;
    const postgresMicrosPerCreate = (postgresCpuSince(postgresBusy) / total) * 1e6;
    ratios.push(rps / pg.tps);
    // The machine's CPU per create against pgbench's per insert bounds the ratio a saturated machine can reach.
    console.log(
      `round ${round}: one svc ${rps.toFixed(0)} creates/s (${mainCpuMicrosPerCreate.toFixed(0)} µs of its main ` +
        `thread each, ${machineMicrosPerCreate.toFixed(0)} µs of the machine's CPU, ${postgresMicrosPerCreate.toFixed(0)} ` +
        `µs of it PostgreSQL's), pgbench ${pg.tps.toFixed(0)} ` +
        `inserts/s of ${bytes}-byte rows (${pg.cpuMicros.toFixed(0)} µs each): ${pct(rps, pg.tps)}`,
    );
    // One event loop does a create's JavaScript: at full load a process makes at most a second over its main thread's
    // CPU per create, and the embedded store's figure is that cost with no database client work in it.
    const lite = wrkCreateRun(embedded.url, DURATION, createScript(`lite${round}`), embeddedAuth, embedded.child.pid);
    const ceiling = 1e6 / lite.mainCpuMicrosPerCreate;
    ceilings.push(ceiling / pg.tps);
    console.log(
      `round ${round}: one svc on the embedded SQLite store ${lite.rps.toFixed(0)} creates/s ` +
        `(${lite.mainCpuMicrosPerCreate.toFixed(0)} µs of its main thread each: at most ${ceiling.toFixed(0)}/s ` +
        `for one process, ${pct(ceiling, pg.tps)} of pgbench)`,
    );
  }
  if (ROUNDS > 0)
    console.log(
      `one svc on PostgreSQL: median ${(median(ratios) * 100).toFixed(1)}% of pgbench's inserts (target ≥ 50%); ` +
        `one process's bound from the embedded store's main thread: median ${(median(ceilings) * 100).toFixed(1)}%`,
    );

  const replicas = [r1];
  for (let n = 2; n <= REPLICAS; n++) replicas.push(await startReplica(`r${n}`));
  const figures = [];
  for (let n = 1; n <= REPLICAS && REPLICAS > 1; n++) {
    const pgRate = pgInsertRate(bytes).tps;
    const rate = await createsOn(replicas.slice(0, n), auth, n);
    figures.push(
      `${n} replica${n > 1 ? 's' : ''} ${rate.toFixed(0)}/s (${pct(rate, pgRate)} of pgbench's ${pgRate.toFixed(0)})`,
    );
  }
  if (figures.length > 0) console.log(`aggregate creates: ${figures.join(', ')}`);
  for (const child of servers.splice(0)) child.kill('SIGKILL');
  for (let round = 1; round <= STORE_ROUNDS; round++) {
    const pg = pgInsertRate(bytes);
    const store = await storeWrites(bytes, round);
    console.log(
      `store alone, round ${round}: ${store.rate.toFixed(0)} writes/s (${store.cpuMicros.toFixed(0)} µs of the ` +
        `machine's CPU each), pgbench ${pg.tps.toFixed(0)} inserts/s (${pg.cpuMicros.toFixed(0)} µs): ` +
        `${pct(store.rate, pg.tps)}`,
    );
  }
  const { rows: stored } = await db.query(
    `SELECT value FROM ${schema}.objects WHERE resource LIKE '%persons' ORDER BY name LIMIT 33`,
  );
  // An older build (SVC_BENCH_CLI) wrote its literals inside the group commit, with pg's encoding.
  const { literal } = await import(path.join(DIST, 'store/postgres-literals.js')).catch(() => ({}));
  const values = stored.map((row) => row.value);
  // Both compiled and the heap grown before anything counts.
  if (literal) for (const encode of [pgEncoding, literal]) encodeMicros(encode, values, 500);
  for (let round = 1; round <= 3 && literal; round++) {
    const baseline = encodeMicros(pgEncoding, values);
    const svc = encodeMicros(literal, values);
    console.log(
      `a group's ${values.length} values as statement text, round ${round}: ${svc.micros.toFixed(0)} µs ` +
        `(${svc.bytes.toFixed(0)} bytes), pg's encoding ${baseline.micros.toFixed(0)} µs (${baseline.bytes.toFixed(0)} ` +
        `bytes): ${pct(svc.micros, baseline.micros)}`,
    );
  }
} finally {
  for (const child of servers) child.kill('SIGKILL');
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
  await db.query(`DROP SCHEMA IF EXISTS ${schema}_store CASCADE`).catch(() => undefined);
  await db.end();
  rmSync(work, { recursive: true, force: true });
}
