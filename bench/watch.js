// `npm run bench:watch` (also part of `npm run bench`): the watch figures of docs/performance.md, each with its
// baseline from the same run. 100 watchers on the Person model while a writer updates persons: event deliveries per
// second in total (baseline: a bare `ws` server sending one shared Buffer to 100 clients); write-to-delivery latency
// p99 at 1,000 writes per second; create throughput with 100 idle watchers as a share of create throughput with none.
// Usage: node bench/watch.js [--watchers 100] [--duration 5]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { adminToken, arg, sleep, startProcess, startSvc } from './lib.js';
import { countingSocket } from './ws-counter.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WATCHERS = arg('watchers', 100);
const DURATION = arg('duration', 5);
const OBJECTS = 100;
const BASE = '/apis/people.svc.run/v1alpha1/persons';
const TICK = 'bench.svc.run/tick';

const line = (name, value, unit, extra = '') =>
  console.log(
    `${name.padEnd(62)} ${value.toFixed(unit === '%' || unit === 'ms' ? 1 : 0).padStart(10)} ${unit}${extra}`,
  );

/** The super administrator's token header for the server at hand (every API needs credentials). */
let AUTH = {};
async function signIn(url) {
  AUTH = await adminToken(url);
}

/** `count` WebSocket clients that count messages; `onMessage` (optional) sees the first client's messages. */
async function connect(url, count, onMessage) {
  const clients = [];
  const counter = { messages: 0 };
  for (let i = 0; i < count; i++)
    clients.push(await countingSocket(url, counter, i === 0 ? onMessage : undefined, AUTH));
  const close = () => {
    for (const c of clients) c.close();
  };
  return { counter, clients, close };
}

async function seedPersons(url, count) {
  for (let i = 0; i < count; i++) {
    const body = {
      apiVersion: 'people.svc.run/v1alpha1',
      kind: 'Person',
      metadata: { name: `w-${i}` },
      spec: { name: `Watched ${i}`, age: 30, gender: 'FEMALE' },
    };
    const response = await fetch(`${url}${BASE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`seeding: ${response.status} ${await response.text()}`);
  }
}

/** A label change: no status change, so the people controller writes nothing and each write is one event. */
const tickPatch = (n) => JSON.stringify({ metadata: { labels: { [TICK]: String(n) } } });

async function deliveries(url) {
  const watchUrl = `${url}${BASE}?resourceVersion=${await revision(url)}`;
  const watchers = await connect(watchUrl, WATCHERS);
  let n = 0;
  const result = await autocannon({
    url,
    connections: 32,
    duration: DURATION,
    requests: [
      {
        method: 'PATCH',
        path: `${BASE}/w-0`,
        headers: { 'content-type': 'application/merge-patch+json', ...AUTH },
        setupRequest: (req) => ({ ...req, path: `${BASE}/w-${n % OBJECTS}`, body: tickPatch(n++) }),
      },
    ],
  });
  const delivered = watchers.counter.messages;
  watchers.close();
  return { perSecond: delivered / DURATION, writes: result.requests.total, errors: result.non2xx + result.errors };
}

async function baselineFanOut(payload, mode) {
  const server = await startProcess(process.execPath, [path.join(root, 'bench/baseline-ws.js')], {
    BASELINE_PAYLOAD: payload,
    BASELINE_MODE: mode,
  });
  try {
    const watchers = await connect(server.url, WATCHERS);
    watchers.clients[0].send('start');
    await sleep(DURATION * 1000);
    watchers.clients[0].send('stop');
    const delivered = watchers.counter.messages;
    watchers.close();
    return delivered / DURATION;
  } finally {
    await server.stop();
  }
}

/** Waits (up to 20 s) until five GETs in a row answer within 5 ms: the server has no backlog left. */
async function settle(url) {
  const deadline = Date.now() + 20_000;
  for (let quick = 0; quick < 5 && Date.now() < deadline; ) {
    const started = performance.now();
    await (await fetch(`${url}${BASE}/w-1`, { headers: AUTH })).arrayBuffer();
    quick = performance.now() - started < 5 ? quick + 1 : 0;
    await sleep(100);
  }
}

async function revision(url) {
  return (await (await fetch(`${url}${BASE}?size=1`, { headers: AUTH })).json()).metadata.resourceVersion;
}

/** Latency with `WATCHERS - 1` load watchers here and the probe (one watcher and the writer) in its own process. */
async function latency(url, writesPerSecond) {
  const load = await connect(`${url}${BASE}?resourceVersion=${await revision(url)}`, WATCHERS - 1);
  try {
    const output = await new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [path.join(root, 'bench/watch-probe.js'), url, String(writesPerSecond), String(DURATION)],
        {
          env: { ...process.env, SVC_BENCH_AUTHORIZATION: AUTH.authorization ?? '' },
        },
      );
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => process.stderr.write(d));
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`latency probe exited with ${code}`))));
    });
    return JSON.parse(output);
  } finally {
    load.close();
  }
}

async function createThroughput(dataDir, watcherCount, query = '') {
  const server = await startSvc(dataDir);
  try {
    await signIn(server.url);
    return await creates(server.url, watcherCount, query);
  } finally {
    await server.stop();
  }
}

async function creates(url, watcherCount, query) {
  const watchers = watcherCount > 0 ? await connect(`${url}${BASE}${query}`, watcherCount) : undefined;
  let i = 0;
  const result = await autocannon({
    url,
    connections: 50,
    duration: DURATION,
    requests: [
      {
        method: 'POST',
        path: BASE,
        headers: { 'content-type': 'application/json', ...AUTH },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            apiVersion: 'people.svc.run/v1alpha1',
            kind: 'Person',
            metadata: { name: `c-${i}` },
            spec: { name: `Created ${i++}`, age: 30 },
          }),
        }),
      },
    ],
  });
  watchers?.close();
  if (result.non2xx + result.errors > 0) throw new Error(`creates failed: ${result.non2xx + result.errors}`);
  return result.requests.total / DURATION;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-watch-'));
try {
  console.log(`svc watch benchmark: ${WATCHERS} watchers, ${DURATION}s per run\n`);
  const server = await startSvc(path.join(dataDir, 'fanout'));
  let payload;
  try {
    await signIn(server.url);
    await seedPersons(server.url, OBJECTS);
    await sleep(500);
    const sample = await (await fetch(`${server.url}${BASE}/w-1`, { headers: AUTH })).text();
    payload = `{"type":"MODIFIED","object":${sample}}\n`;
    const baseline = await baselineFanOut(payload, 'plain');
    line(`baseline: bare ws.send of one ${payload.length}-byte Buffer to ${WATCHERS} clients`, baseline, 'msg/s');
    const corked = await baselineFanOut(payload, 'corked');
    line(`  the same, 64 sends corked into one write per client`, corked, 'msg/s');
    const fan = await deliveries(server.url);
    line(
      `watch: event deliveries to ${WATCHERS} watchers while updating`,
      fan.perSecond,
      'events/s',
      `  (${((fan.perSecond / baseline) * 100).toFixed(1)}% of baseline; ${(fan.writes / DURATION).toFixed(0)} writes/s; target >= 100000)`,
    );
    if (fan.errors) console.log(`  (errors in the write run: ${fan.errors})`);
    // The fan-out run leaves a backlog (watch queues, a reconcile per write): measure at a steady 1,000 writes/s, not
    // while the server is still catching up with the previous run.
    await settle(server.url);
    const lat = await latency(server.url, 1000);
    line(
      `watch: write-to-delivery latency p99 at 1000 writes/s`,
      lat.p99,
      'ms',
      `  (p50 ${lat.p50.toFixed(1)} ms over ${lat.samples} events; the write's own response: p50 ${lat.writeP50.toFixed(1)}, p99 ${lat.writeP99.toFixed(1)} ms; target < 50)`,
    );
  } finally {
    await server.stop();
  }
  const alone = await createThroughput(path.join(dataDir, 'alone'), 0);
  line('create over HTTP, no watchers (baseline)', alone, 'objects/s');
  // Idle: watching the model, with a selector none of the created objects match (each write is still matched
  // against every watcher). Following: receiving every event (each create is 3 events: the people controller adds
  // a finalizer and a status), so 300 deliveries per create, counted by this same process on this same machine.
  const idle = await createThroughput(path.join(dataDir, 'idle'), WATCHERS, '?labelSelector=bench.svc.run/idle=yes');
  line(
    `create over HTTP, ${WATCHERS} idle watchers`,
    idle,
    'objects/s',
    `  (${((idle / alone) * 100).toFixed(1)}% of baseline; target >= 80%)`,
  );
  const following = await createThroughput(path.join(dataDir, 'following'), WATCHERS);
  line(
    `create over HTTP, ${WATCHERS} watchers receiving every event`,
    following,
    'objects/s',
    `  (${((following / alone) * 100).toFixed(1)}% of baseline)`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
