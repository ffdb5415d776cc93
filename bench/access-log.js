// The access log's cost: GET one object and a first page of 20, with the log level at info and the access log on,
// then off, then at warn (and, with --against <checkout>, another built checkout at info). Servers run one at a time
// on one data dir, in rounds whose order rotates; medians are printed as ratios to the access log off.
// The server's stdout goes to a file, so no reader of a pipe competes with the load generator for the CPU.
// Usage: node bench/access-log.js [--rounds 5] [--duration 4] [--persons 5000] [--against /path/to/checkout]
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminToken, arg, BENCH_ADMIN_PASSWORD, load, seedPersons, serveArgs, sleep } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = arg('rounds', 5);
const DURATION = arg('duration', 4);
const PERSONS = arg('persons', 5000);
const againstAt = process.argv.indexOf('--against');
const against = againstAt > 0 ? path.resolve(process.argv[againstAt + 1]) : undefined;
const BASE = '/apis/people.svc.run/v1alpha1/persons';
const cli = (checkout) => path.join(checkout, 'packages/server/dist/cli.js');

const variants = {
  'info, access log on': { cli: cli(root), env: { SVC_LOG_LEVEL: 'info' } },
  'info, access log off': { cli: cli(root), env: { SVC_LOG_LEVEL: 'info', SVC_ACCESS_LOG: 'false' } },
  warn: { cli: cli(root), env: { SVC_LOG_LEVEL: 'warn' } },
  ...(against ? { [`${path.basename(against)}, info`]: { cli: cli(against), env: { SVC_LOG_LEVEL: 'info' } } } : {}),
};

const work = mkdtempSync(path.join(tmpdir(), 'svc-access-log-'));
const dataDir = path.join(work, 'data');

/** Starts a server whose stdout goes to a file; resolves once the file names its URL. */
async function start({ cli, env }) {
  const logFile = path.join(work, `out-${Date.now()}.log`);
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, serveArgs(cli), {
    env: {
      ...process.env,
      SVC_PORT: '0',
      SVC_DATA_DIR: dataDir,
      SVC_PLUGINS_DIR: path.join(root, 'plugins'),
      SVC_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
      SVC_LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  for (let waited = 0; waited < 30_000; waited += 50) {
    const match = /listening on (http:\/\/\S+)/.exec(readFileSync(logFile, 'utf8'));
    if (match) {
      const stop = () =>
        new Promise((resolve) => {
          child.on('exit', resolve);
          child.kill('SIGTERM');
        });
      return { url: match[1], stop };
    }
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`${cli} did not start within 30 s`);
}

const results = Object.fromEntries(Object.keys(variants).map((name) => [name, { get: [], page: [] }]));
try {
  let server = await start(variants.warn);
  await seedPersons(server.url, PERSONS, await adminToken(server.url));
  await server.stop();
  const names = Object.keys(variants);
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      server = await start(variants[name]);
      const auth = await adminToken(server.url);
      const one = `${server.url}${BASE}/p-${Math.min(42, PERSONS - 1)}`;
      await load({ url: one, duration: 1, headers: auth }); // warm-up
      const get = await load({ url: one, duration: DURATION, headers: auth });
      const page = await load({ url: `${server.url}${BASE}?size=20`, duration: DURATION, headers: auth });
      if (get.errors || page.errors) console.log(`  (errors: ${get.errors + page.errors})`);
      results[name].get.push(get.rps);
      results[name].page.push(page.rps);
      console.log(
        `round ${round + 1}  ${name.padEnd(24)} GET one ${get.rps.toFixed(0).padStart(6)}  page ${page.rps.toFixed(0).padStart(6)}`,
      );
      await server.stop();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const reference = results['info, access log off'];
console.log('\nmedians, req/s (ratio to the access log off):');
for (const [name, { get, page }] of Object.entries(results)) {
  const [g, p] = [median(get), median(page)];
  const ratio = (value, of) => `${((value / median(of)) * 100).toFixed(1)}%`;
  console.log(
    `${name.padEnd(24)} GET one ${g.toFixed(0).padStart(6)} (${ratio(g, reference.get)})  page ${p.toFixed(0).padStart(6)} (${ratio(p, reference.page)})`,
  );
}
