// `npm run bench:stall`: how long one hostile request holds svc's event loop (docs/performance.md "Stalls").
// Starts `svc serve` as the other benches do, then sends a catalogue of hostile requests one at a time while a probe
// in a worker thread (an event loop of its own, so the sending never delays it) GETs /healthz back to back over one
// kept-alive connection. A request's stall is the slowest probe answer from just before it is sent until 50 ms after
// its answer; the idle figure is the slowest probe with nothing else sent. Each request is sent --runs times (default
// 5): the machine is shared, so other work only ever adds to a run's stall, and the least of the runs is the
// request's own (the greatest is printed beside it). Prints every request's stall, then the worst and its body.
// Usage: node bench/stall.js [--runs 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { create } from 'tar';
import { arg, BENCH_ADMIN_PASSWORD, createUser, login, sleep, startSvc } from './lib.js';

const RUNS = arg('runs', 5);
const MiB = 1024 * 1024;
const PERSONS = '/apis/people.svc.run/v1alpha1/persons';
const CONSOLE = '/apis/api.console.svc.run/v1alpha1';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const JSON_TYPE = { 'content-type': 'application/json' };

/** The probe: GET /healthz in a loop; on 'reset' it forgets its slowest answer, on 'read' it reports it. */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let slowest = 0;
let probes = 0;
parentPort.on('message', (message) => {
  if (message === 'read') parentPort.postMessage({ slowest, probes });
  slowest = 0;
  probes = 0;
  if (message === 'stop') process.exit(0);
});
(async () => {
  for (;;) {
    const started = performance.now();
    const response = await fetch(workerData.url);
    await response.arrayBuffer();
    slowest = Math.max(slowest, performance.now() - started);
    probes++;
  }
})();
`;

const keys = (count) => Array.from({ length: count }, (_, i) => `k${i}: 1\n`).join('');
const repeatTo = (unit, bytes) => unit.repeat(Math.floor(bytes / unit.length));

/** A multipart/form-data body with one file. */
function multipart(content, name = 'plugin.tgz') {
  const boundary = `----svcbench${Math.random().toString(36).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A plugin archive (.tgz) whose plugin.yaml is `manifest`. */
async function archiveWith(manifest) {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-stall-plugin-'));
  try {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(dir, 'plugin.yaml'), manifest);
    writeFileSync(path.join(dir, 'index.js'), 'export default { start() {} };\n');
    const chunks = [];
    for await (const chunk of create({ gzip: true, cwd: dir }, ['plugin.yaml', 'index.js'])) chunks.push(chunk);
    return Buffer.concat(chunks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The catalogue. `who`: anonymous, or the administrator or a contributor (signed in); `body` is built before any
 * measuring starts. `what` says in a few words what the body holds.
 */
async function catalogue() {
  const manyParams = Array.from({ length: 1500 }, (_, i) => `p${i}=${i}`).join('&');
  const manySelectors = Array.from({ length: 700 }, (_, i) => `labelSelector=a${i}%3Dv`).join('&');
  const hostileManifest = await archiveWith(keys(20_000));
  const labels = Object.fromEntries(Array.from({ length: 150_000 }, (_, i) => [`l${i}`, 'v']));
  const cases = [
    // Server-side apply's YAML where it is not meant (refused before the body is read).
    { name: 'YAML, 20,000 keys (189 KB), to POST /login', path: '/login', headers: APPLY, body: keys(20_000) },
    { name: 'YAML, 100,000 keys (988 KB), to POST /login', path: '/login', headers: APPLY, body: keys(100_000) },
    {
      name: 'YAML, 4 MiB of nested brackets, to POST /login',
      path: '/login',
      headers: APPLY,
      body: `${'['.repeat(2 * MiB)}${']'.repeat(2 * MiB)}`,
    },
    { name: 'YAML, 20,000 keys, to the setup route', path: `${CONSOLE}/setup`, headers: APPLY, body: keys(20_000) },
    // Server-side apply's YAML where it is meant (the administrator; any caller allowed to patch).
    ...[
      ['20,000 keys (token limit)', keys(20_000)],
      ['3,330 keys (just under the token limit)', keys(3330)],
      ['100,000 keys (size limit)', keys(100_000)],
      ['4 MiB of nested brackets', `${'['.repeat(2 * MiB)}${']'.repeat(2 * MiB)}`],
      ['256 KiB of nested brackets', `${'['.repeat(128 * 1024)}${']'.repeat(128 * 1024)}`],
      ['9,990 tokens of `- :` lines', repeatTo('- :\n', 4 * 4995)],
      ['9,990 tokens of `[:,:,…]`', `[${repeatTo(':,', 2 * 4995)}]`],
      ['99-deep brackets, repeated to 9,990 tokens', `[${repeatTo(`${'['.repeat(99)}${']'.repeat(99)},`, 10_000)}]`],
      ['a 256 KiB block scalar', `a: |\n${repeatTo('  line of text\n', 256 * 1024 - 10)}`],
      ['256 KiB of stray `]` (syntax errors)', repeatTo(']\n', 256 * 1024)],
      ['256 KiB of empty documents', repeatTo('---\n', 256 * 1024)],
      ['a duplicate key after 3,000', `${keys(3000)}k7: 2\n`],
    ].map(([what, body]) => ({
      name: `YAML apply, ${what}`,
      method: 'PATCH',
      path: `${PERSONS}/stall?fieldManager=bench`,
      who: 'admin',
      headers: APPLY,
      body,
    })),
    {
      name: 'JSON apply, 4 MiB object (the JSON path)',
      method: 'PATCH',
      path: `${PERSONS}/stall?fieldManager=bench`,
      who: 'admin',
      headers: APPLY,
      body: JSON.stringify({
        apiVersion: 'people.svc.run/v1alpha1',
        kind: 'Person',
        metadata: { name: 'stall', annotations: { n: 'x'.repeat(4 * MiB - 200) } },
      }),
    },
    // JSON at the body limit.
    {
      name: 'JSON, 4 MiB of nested brackets, to POST /login',
      path: '/login',
      headers: JSON_TYPE,
      body: `${'['.repeat(2 * MiB)}${']'.repeat(2 * MiB)}`,
    },
    {
      name: 'JSON, 4 MiB wide object (350,000 keys), to POST /login',
      path: '/login',
      headers: JSON_TYPE,
      body: `{${Array.from({ length: 350_000 }, (_, i) => `"k${i}":0`).join(',')}}`.slice(0, 4 * MiB - 1),
    },
    {
      name: 'JSON, 4 MiB password, to POST /login',
      path: '/login',
      headers: JSON_TYPE,
      body: JSON.stringify({ username: 'admin', password: 'x'.repeat(4 * MiB - 100) }),
    },
    {
      name: 'JSON, 4 MiB of 99-deep arrays, as the administrator to a model',
      path: PERSONS,
      who: 'admin',
      headers: JSON_TYPE,
      body: `{"a":[${repeatTo(`${'['.repeat(98)}${']'.repeat(98)},`, 4 * MiB - 100)}[]]}`,
    },
    {
      name: 'JSON, 4 MiB wide object (350,000 keys), as the administrator to a model',
      path: PERSONS,
      who: 'admin',
      headers: JSON_TYPE,
      body: `{${Array.from({ length: 350_000 }, (_, i) => `"k${i}":0`).join(',')}}`.slice(0, 4 * MiB - 1),
    },
    {
      name: 'JSON, 150,000 labels on a post, as a contributor',
      path: '/apis/uc.api.content.svc.run/v1alpha1/posts',
      who: 'contributor',
      headers: JSON_TYPE,
      body: JSON.stringify({
        apiVersion: 'uc.api.content.svc.run/v1alpha1',
        kind: 'Post',
        metadata: { name: 'many', labels },
        spec: { title: 'Many' },
      }),
    },
    {
      name: 'form, 64 KiB of fields, to POST /login',
      path: '/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: repeatTo('a=1&', 64 * 1024 - 4),
    },
    {
      name: 'JSON, 12 MiB (over the limit), to POST /login',
      path: '/login',
      headers: JSON_TYPE,
      body: Buffer.alloc(12 * MiB, 'x'),
    },
    // The request line and headers.
    { name: '1,500 query parameters, to GET /healthz', method: 'GET', path: `/healthz?${manyParams}` },
    { name: '700 label selectors, to GET a model (anonymous)', method: 'GET', path: `${PERSONS}?${manySelectors}` },
    {
      name: '700 label selectors, to GET a model (administrator)',
      method: 'GET',
      path: `${PERSONS}?${manySelectors}`,
      who: 'admin',
    },
    { name: 'a 15 KiB header', method: 'GET', path: '/healthz', headers: { 'x-long': 'x'.repeat(15 * 1024) } },
    {
      name: '500 headers',
      method: 'GET',
      path: '/healthz',
      headers: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`x-h${i}`, 'v'])),
    },
    // Uploads to the plugin install route.
    {
      name: 'multipart, 12 MiB, to the install route (anonymous)',
      path: `${CONSOLE}/plugins/install`,
      ...multipart(Buffer.alloc(12 * MiB, 1)),
    },
    {
      name: 'multipart, 65 MiB (over the limit), to the install route (administrator)',
      path: `${CONSOLE}/plugins/install`,
      who: 'admin',
      ...multipart(Buffer.alloc(65 * MiB, 1)),
    },
    {
      name: 'a plugin whose plugin.yaml holds 20,000 keys (administrator)',
      path: `${CONSOLE}/plugins/install`,
      who: 'admin',
      ...multipart(hostileManifest),
    },
  ];
  return cases;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-stall-'));
let probe;
try {
  const server = await startSvc(dataDir);
  await createUser(server.url, 'cathy', 'cathy-password', ['contributor']);
  const sessions = {
    admin: await login(server.url, 'admin', BENCH_ADMIN_PASSWORD),
    contributor: await login(server.url, 'cathy', 'cathy-password'),
  };
  const cases = await catalogue();
  probe = new Worker(PROBE, { eval: true, workerData: { url: `${server.url}/healthz` } });
  const read = () =>
    new Promise((resolve) => {
      probe.once('message', resolve);
      probe.postMessage('read');
    });
  await sleep(500);
  // Idle, as the requests are measured: the least of the runs' slowest probes, each over a quiet window.
  const idleRuns = [];
  for (let run = 0; run < RUNS; run++) {
    await read();
    await sleep(400);
    idleRuns.push(await read());
  }
  const idle = idleRuns.reduce((a, b) => (b.slowest < a.slowest ? b : a));

  const results = [];
  for (const c of cases) {
    const runs = [];
    for (let run = 0; run < RUNS; run++) {
      await sleep(100);
      await read();
      const started = performance.now();
      let status;
      try {
        const response = await fetch(`${server.url}${c.path}`, {
          method: c.method ?? 'POST',
          headers: { ...(c.who ? sessions[c.who] : {}), ...c.headers },
          body: c.body,
        });
        await response.arrayBuffer();
        status = response.status;
      } catch (error) {
        status = `failed: ${error.cause?.code ?? error.message}`;
      }
      const ms = performance.now() - started;
      await sleep(50);
      const { slowest } = await read();
      runs.push({ stall: slowest, status, ms });
    }
    const least = runs.reduce((a, b) => (b.stall < a.stall ? b : a));
    const most = Math.max(...runs.map((r) => r.stall));
    results.push({ ...c, ...least });
    console.log(
      `${c.name.padEnd(82)} ${String(least.status).padStart(3)}  stall ${least.stall.toFixed(1).padStart(6)} ms (worst run ${most.toFixed(1).padStart(6)})  answered in ${least.ms.toFixed(0)} ms`,
    );
  }
  probe.postMessage('stop');
  await server.stop();

  const worst = results.reduce((a, b) => (b.stall > a.stall ? b : a));
  const size = Buffer.byteLength(worst.body ?? '');
  const shown = worst.body === undefined ? '' : String(worst.body).slice(0, 100).replace(/\n/g, '\\n');
  console.log(
    `\nidle: the slowest /healthz probe in 400 ms with nothing else sent, least of ${RUNS} windows: ${idle.slowest.toFixed(1)} ms`,
  );
  console.log(`worst: ${worst.name}: stall ${worst.stall.toFixed(1)} ms, status ${worst.status}`);
  console.log(
    `  ${worst.method ?? 'POST'} ${worst.path.slice(0, 100)}, ${size} bytes of body: ${shown}${size > 100 ? '…' : ''}`,
  );
} finally {
  await probe?.terminate();
  rmSync(dataDir, { recursive: true, force: true });
}
