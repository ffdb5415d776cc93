// `npm run bench:replicas`: svc as several replicas on one PostgreSQL database (README "Running several replicas").
// Figures, each beside its baseline from the same run:
//  1. replication lag from a create's 201 on replica 1 to its ADDED event on a watch of replica 2, and to its being
//     found through the spec.name index on replica 2, at ~1,000 creates/s (target p99 ≤ 100 ms), then at each
//     `--lag-rates` given (500 creates/s is 1,000 writes/s with the controller's status writes);
//  2. creates per second on 1, 2 and 3 replicas (wrk on each at once), against PostgreSQL's own autocommit insert rate
//     (pgbench, 16 clients);
//  3. reads per second (GET one person) on 2 replicas against 1;
//  4. leader hand-over after kill -9 of the leader (target ≤ 5 s).
// Usage: node bench/replicas.js [--lag-seconds 10] [--duration 5] [--handovers 3] [--lag-rates 500,250]
// The machine has two cores: replicas, PostgreSQL and the load generators share them.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { adminToken, arg, argList, hasWrk, seedPersons, sleep, startPostgresReplica, wrkInBackground } from './lib.js';

const DATABASE_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const LAG_SECONDS = arg('lag-seconds', 10);
const DURATION = arg('duration', 5);
const HANDOVERS = arg('handovers', 3);
const LAG_RATES = argList('lag-rates', []);
const PERSONS = '/apis/people.svc.run/v1alpha1/persons';
if (!hasWrk) {
  console.log('bench:replicas needs wrk (apt-get install -y wrk)');
  process.exit(1);
}

const schema = `bench_replicas_${randomBytes(4).toString('hex')}`;
const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-replicas-'));
const db = new pg.Client({ connectionString: DATABASE_URL });
await db.connect();
const replicas = new Map();

/** Starts replica `id` (`svc serve` on the shared schema); resolves once it listens. */
async function startReplica(id) {
  const { listening } = startPostgresReplica({ id, dataDir: path.join(work, id), databaseUrl: DATABASE_URL, schema });
  const replica = await listening;
  replicas.set(id, replica);
  return replica;
}

function kill(replica) {
  replicas.delete(replica.id);
  return new Promise((resolve) => {
    if (replica.child.exitCode !== null || replica.child.signalCode !== null) return resolve();
    replica.child.once('exit', resolve);
    replica.child.kill('SIGKILL');
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const ms = (n) => `${n.toFixed(1)} ms`;
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted[sorted.length - 1])}`;
};

function personBody(name, label) {
  return JSON.stringify({
    apiVersion: 'people.svc.run/v1alpha1',
    kind: 'Person',
    metadata: { name, labels: { bench: label } },
    spec: { name: `Lag ${name}`, age: 30, gender: 'FEMALE' },
  });
}

/** A watch over HTTP; calls `onEvent(event, arrivalMs)` for each newline-delimited event. */
function watch(url, query, auth, onEvent) {
  return new Promise((resolve) => {
    const request = http.get(`${url}${PERSONS}?${query}`, { headers: auth }, (response) => {
      let partial = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        const at = performance.now();
        partial += chunk;
        let newline;
        while ((newline = partial.indexOf('\n')) >= 0) {
          const line = partial.slice(0, newline);
          partial = partial.slice(newline + 1);
          if (line.trim()) onEvent(JSON.parse(line), at);
        }
      });
      resolve(() => request.destroy());
    });
    request.on('error', () => undefined);
  });
}

async function untilOk(check, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * 1. Lag at ~`rate` creates/s on `writer`: a watch on the writer and one on `reader` see each ADDED; the replication lag
 * is the reader's arrival minus the writer's (both clocks are this process's). Every 20th create is also looked up
 * on the reader through the spec.name index right after its 201, until found.
 */
let lagRuns = 0;
async function measureLag(writer, reader, auth, rate = 1000) {
  const run = lagRuns++;
  const local = new Map();
  const remote = new Map();
  const toIndex = [];
  const follow = (arrivals) => (event, at) => {
    const name = event.object?.metadata?.name;
    // A watch begins with every matching object there is: only this run's count.
    if (event.type === 'ADDED' && name?.startsWith(`lag${run}-`)) arrivals.set(name, at);
  };
  const stopLocal = await watch(writer.url, 'watch=true&labelSelector=bench=lag', auth, follow(local));
  const stopRemote = await watch(reader.url, 'watch=true&labelSelector=bench=lag', auth, follow(remote));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const post = (name) =>
    new Promise((resolve, reject) => {
      const request = http.request(
        `${writer.url}${PERSONS}`,
        { method: 'POST', agent, headers: { ...auth, 'content-type': 'application/json' } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode));
        },
      );
      request.on('error', reject);
      request.end(personBody(name, 'lag'));
    });
  const indexProbe = async (name) => {
    const started = performance.now();
    const query = `${reader.url}${PERSONS}?fieldSelector=spec.name=${encodeURIComponent(`Lag ${name}`)}&size=1`;
    while (performance.now() - started < 5000) {
      const list = await (await fetch(query, { headers: auth })).json();
      if (list.total === 1) return toIndex.push(performance.now() - started);
      await sleep(2);
    }
  };
  const total = rate * LAG_SECONDS;
  const started = performance.now();
  const inFlight = new Set();
  const probes = [];
  let failed = 0;
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    while (inFlight.size >= 64) await Promise.race(inFlight);
    const name = `lag${run}-${i}`;
    const request = post(name).then((status) => {
      inFlight.delete(request);
      if (status !== 201) return void failed++;
      if (i % 20 === 0) probes.push(indexProbe(name));
    });
    inFlight.add(request);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(probes);
  await untilOk(() => remote.size >= total - failed && local.size >= total - failed, 'every event').catch(
    () => undefined,
  );
  stopLocal();
  stopRemote();
  agent.destroy();
  const lags = [...local].filter(([name]) => remote.has(name)).map(([name, at]) => remote.get(name) - at);
  console.log(
    `lag at ${(total / seconds).toFixed(0)} creates/s on replica 1 (target ${rate}/s): watch event on replica 2 after ` +
      `replica 1's own ${summary(lags)}; found through the spec.name index on replica 2 after the 201 (every 20th) ` +
      `${summary(toIndex)} (target p99 ≤ 100 ms); ${total - failed - remote.size} events missing on replica 2, ` +
      `${failed} creates failed`,
  );
}

/** wrk creates on each of `targets` at once, names prefixed per replica so they never collide; summed rate. */
function createsOn(targets, auth, round) {
  const runs = targets.map((replica) => {
    const script = path.join(work, `create-${round}-${replica.id}.lua`);
    writeFileSync(
      script,
      `local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
function request()
  counter = counter + 1
  local body = string.format('{"apiVersion":"people.svc.run/v1alpha1","kind":"Person","metadata":{"name":"c${round}-${replica.id}-%d"},"spec":{"name":"C${round} ${replica.id} %d","age":%d,"gender":"FEMALE"}}', counter, counter, counter % 100)
  return wrk.format(nil, "${PERSONS}", nil, body)
end
`,
    );
    return wrkInBackground(replica.url, DURATION, { script, headers: auth }).then((run) => run.succeededRps);
  });
  return Promise.all(runs).then((rates) => rates.reduce((a, b) => a + b, 0));
}

/** PostgreSQL's own autocommit insert rate: pgbench, 16 clients, a row about a person's size each. */
async function pgInsertRate() {
  await db.query(`CREATE TABLE ${schema}.bench_inserts (id bigserial PRIMARY KEY, name text, value bytea)`);
  const script = path.join(work, 'insert.sql');
  writeFileSync(
    script,
    `INSERT INTO ${schema}.bench_inserts (name, value) VALUES (md5(random()::text), decode(repeat('ab', 300), 'hex'));\n`,
  );
  const out = execFileSync(
    'pgbench',
    ['-n', '-c', '16', '-j', '2', '-T', String(DURATION), '-f', script, DATABASE_URL],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  return Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(out)[1]);
}

/** wrk GETs of one person on each of `targets` at once; summed rate. */
function readsOn(targets, auth, name) {
  return Promise.all(
    targets.map((replica) =>
      wrkInBackground(`${replica.url}${PERSONS}/${name}`, DURATION, { headers: auth }).then((run) => run.rps),
    ),
  ).then((rates) => rates.reduce((a, b) => a + b, 0));
}

async function leader() {
  const { rows } = await db.query(`SELECT holder, epoch FROM ${schema}.leases WHERE name = 'controllers'`);
  return rows[0] && { holder: rows[0].holder, epoch: Number(rows[0].epoch) };
}

try {
  const r1 = await startReplica('r1');
  const r2 = await startReplica('r2');
  const r3 = await startReplica('r3');
  const auth = await adminToken(r1.url);
  for (const replica of [r2, r3]) {
    await untilOk(
      async () => (await fetch(`${replica.url}${PERSONS}?size=1`, { headers: auth })).status === 200,
      'token',
    );
  }

  await measureLag(r1, r2, auth);
  for (const rate of LAG_RATES) await measureLag(r1, r2, auth, rate);

  const pgRate = await pgInsertRate();
  const creates = [];
  for (const n of [1, 2, 3]) creates.push(await createsOn([r1, r2, r3].slice(0, n), auth, n));
  console.log(
    `creates/s: ${creates.map((rate, i) => `${i + 1} replica${i ? 's' : ''} ${rate.toFixed(0)} (${((rate / pgRate) * 100).toFixed(1)}%)`).join(', ')} ` +
      `of PostgreSQL's own autocommit inserts, ${pgRate.toFixed(0)}/s (pgbench, 16 clients)`,
  );

  await seedPersons(r1.url, 1000, auth);
  const one = await readsOn([r1], auth, 'p-500');
  const two = await readsOn([r1, r2], auth, 'p-500');
  console.log(
    `reads/s (GET one person): 1 replica ${one.toFixed(0)}, 2 replicas ${two.toFixed(0)} (${(two / one).toFixed(2)}×)`,
  );

  const times = [];
  let next = 4;
  for (let i = 0; i < HANDOVERS; i++) {
    await untilOk(async () => (await leader()) !== undefined, 'a leader');
    const before = await leader();
    const victim = replicas.get(before.holder);
    const killedAt = performance.now();
    await kill(victim);
    await untilOk(async () => {
      const now = await leader();
      return now.epoch > before.epoch && now.holder !== before.holder;
    }, 'a new leader');
    times.push(performance.now() - killedAt);
    await startReplica(`r${next++}`);
  }
  console.log(
    `leader hand-over after kill -9: ${times.map((t) => ms(t)).join(', ')}; max ${ms(Math.max(...times))} (target ≤ 5000 ms)`,
  );
} finally {
  await Promise.all([...replicas.values()].map(kill));
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
  await db.end();
  rmSync(work, { recursive: true, force: true });
}
