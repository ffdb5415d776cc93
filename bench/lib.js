// Helpers shared by the benchmark scripts: child servers, autocannon runs, memory readings.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { SERVE_NODE_FLAGS } from '../packages/server/bin/node-flags.js';

/** Spawns a server and resolves once it prints its `… listening on URL` line; reports how long that took. */
export function startProcess(command, args, env = {}) {
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        const bootMs = Number(process.hrtime.bigint() - started) / 1e6;
        resolve({ child, url: match[1], bootMs, stop: () => stop(child) });
      }
    });
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}: ${stderr}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.on('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** Resident set size of a process in bytes (Linux). */
export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

export async function load(options) {
  const result = await autocannon({ connections: 50, duration: 5, ...options });
  const errors = result.errors + result.timeouts + (result.non2xx ?? 0);
  return { rps: result.requests.average, p99: result.latency.p99, total: result.requests.total, errors };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** wrk (Debian package `wrk`) is used for creates when installed: autocannon's per-request JavaScript saturates
 * its own core before the server does. */
export const hasWrk = spawnSync('wrk', ['--version']).error === undefined;

/** Creates per second over `seconds` with 50 connections, using wrk and bench/create.lua. */
export function wrkCreates(url, seconds, script, headers = {}) {
  return wrkCreateRun(url, seconds, script, headers).rps;
}

/**
 * A wrk create run. With the server's `pid`, also the CPU time its main (JavaScript) thread spent per create: on a
 * machine shared with other work that figure moves far less than requests per second, so A/B comparisons read it.
 */
export function wrkCreateRun(url, seconds, script, headers = {}, pid = undefined) {
  const before = pid && threadCpuSeconds(pid);
  const out = execFileSync('wrk', ['-t1', '-c50', `-d${seconds}s`, '-s', script, ...headerArgs(headers), url], {
    encoding: 'utf8',
  });
  const after = pid && threadCpuSeconds(pid);
  const { rps, total, non2xx } = wrkCounts(out);
  if (non2xx > 0) throw new Error(`wrk: ${non2xx} creates failed`);
  return { rps, total, mainCpuMicrosPerCreate: pid ? ((after - before) / total) * 1e6 : undefined };
}

/**
 * wrk in the background, 32 connections for `seconds` on `url` (with a Lua `script` if given): resolves with its
 * requests per second and counts, read once its output has closed. Rejects when it printed no rate (it could not
 * connect, say), with what it said.
 */
export function wrkInBackground(url, seconds, { script, headers = {} } = {}) {
  const args = ['-t1', '-c32', `-d${seconds}s`, ...(script ? ['-s', script] : []), ...headerArgs(headers), url];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args);
    let out = '';
    let errors = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (errors += d));
    // 'close', not 'exit': the process can exit before its output has all been read.
    child.on('close', () => {
      const counts = wrkCounts(out);
      if (!counts.rps) return reject(new Error(`wrk: ${out}${errors}`));
      resolve({ ...counts, succeededRps: counts.rps * (1 - counts.non2xx / counts.total) });
    });
  });
}

/** `-H` arguments for wrk, one per header. */
const headerArgs = (headers) => Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);

/** What wrk's summary says: requests per second (NaN when it printed none), requests made, and non-2xx answers. */
function wrkCounts(out) {
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    total: Number(/(\d+) requests in/.exec(out)?.[1]),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

/** A duration wrk prints (`812.00us`, `1.20ms`, `2.01s`), in milliseconds. */
function wrkMs(text) {
  const [, value, unit] = /([\d.]+)(us|ms|s)/.exec(text);
  // Rounded to the microsecond wrk reports in: 823.00us is 0.823 ms, not 0.8230000000000001.
  return Math.round(Number(value) * { us: 1, ms: 1000, s: 1_000_000 }[unit]) / 1000;
}

/** GETs of `url` for `seconds` with 50 connections (wrk): requests per second, and mean, p50 and p99 latency in ms. */
export function wrkGets(url, seconds, headers = {}) {
  const out = execFileSync('wrk', ['-t1', '-c50', `-d${seconds}s`, '--latency', ...headerArgs(headers), url], {
    encoding: 'utf8',
  });
  const { rps, non2xx } = wrkCounts(out);
  if (non2xx > 0) throw new Error(`wrk: ${non2xx} of the GETs of ${url} failed`);
  return {
    rps,
    meanMs: wrkMs(/Latency\s+(\S+)/.exec(out)[1]),
    p50Ms: wrkMs(/\s50%\s+(\S+)/.exec(out)[1]),
    p99Ms: wrkMs(/\s99%\s+(\S+)/.exec(out)[1]),
  };
}

/** User plus system CPU seconds of a process's main thread (Linux; clock ticks of 10 ms). */
export function threadCpuSeconds(pid) {
  return statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);
}

/** User plus system CPU seconds from a `/proc` stat file (a process's or a thread's). */
function statCpuSeconds(file) {
  const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds the whole machine spent busy so far (every core: user, nice, system, irq, softirq, steal from
 * /proc/stat), so a run's machine CPU per operation can be set beside another's: on a saturated machine the rate is
 * the cores over it.
 */
export function machineBusySeconds() {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) / 100;
}

/**
 * CPU seconds each of this machine's PostgreSQL processes (the server and its backends, named `postgres`) has spent
 * so far, by pid: with `postgresCpuSince`, PostgreSQL's share of a run on a server on the same machine.
 */
export function postgresCpuTimes() {
  const times = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) continue;
      times.set(pid, statCpuSeconds(`/proc/${pid}/stat`));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return times;
}

/**
 * CPU seconds PostgreSQL's processes spent since `before` (postgresCpuTimes): each live process's growth, a new one's
 * whole. A backend that ended meanwhile (a client that left) takes its share with it, so runs read it over
 * connections that stay open (svc's pools).
 */
export function postgresCpuSince(before) {
  let seconds = 0;
  for (const [pid, now] of postgresCpuTimes()) seconds += now - (before.get(pid) ?? 0);
  return seconds;
}

/** Reads the server's /metrics once; the function returned gives one series' value, or undefined when it is absent. */
export async function readMetrics(url, headers) {
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  return (series) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
}

/** The administrator password the benchmarks start svc with. */
export const BENCH_ADMIN_PASSWORD = 'bench-admin-password';

/** Signs in through POST /login; returns the session's headers (cookies and the CSRF token). */
export async function login(url, username, password) {
  const response = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (response.status !== 200) throw new Error(`login ${username}: ${response.status}`);
  const cookies = response.headers.getSetCookie().map((c) => c.split(';')[0]);
  const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN=')).slice('XSRF-TOKEN='.length);
  return { cookie: cookies.join('; '), 'x-xsrf-token': xsrf };
}

/** Creates a personal access token for the signed-in session; returns the Authorization header that carries it. */
export async function tokenHeader(url, session, roles, name = `bench-${roles.join('-')}`) {
  const response = await fetch(`${url}/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...session },
    body: JSON.stringify({ spec: { name, roles } }),
  });
  if (response.status !== 201) throw new Error(`token: ${response.status} ${await response.text()}`);
  const token = (await response.json()).metadata.annotations['security.svc.run/access-token'];
  return { authorization: `Bearer ${token}` };
}

/** Creates a user holding `roles` through the console API, signed in as the bench administrator. */
export async function createUser(url, name, password, roles) {
  const created = await fetch(`${url}/apis/api.console.svc.run/v1alpha1/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(await login(url, 'admin', BENCH_ADMIN_PASSWORD)) },
    body: JSON.stringify({ name, password, roles }),
  });
  if (created.status !== 201) throw new Error(`creating user ${name}: ${created.status} ${await created.text()}`);
}

/** The super administrator's token header on a server started with BENCH_ADMIN_PASSWORD. */
export async function adminToken(url) {
  return tokenHeader(url, await login(url, 'admin', BENCH_ADMIN_PASSWORD), ['super-role']);
}

/** A numeric command-line option: `--name value`, or `fallback` when absent. */
export const arg = (name, fallback) => argList(name, [fallback])[0];

/** A list of numbers as a command-line option: `--name 1,2,3`, or `fallback` when absent. */
export const argList = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1].split(',').map(Number) : fallback;
};

/** Creates `count` persons over HTTP, 50 in flight; bodies are built beforehand so the client does little per request. */
export async function seedPersons(url, count, auth) {
  let i = 0;
  const genders = ['MALE', 'FEMALE'];
  const bodies = Array.from({ length: count }, (_, n) =>
    JSON.stringify({
      apiVersion: 'people.svc.run/v1alpha1',
      kind: 'Person',
      metadata: { name: `p-${n}`, labels: { 'people.svc.run/team': `team-${n % 50}` } },
      spec: { name: `Person ${n}`, age: n % 151, gender: genders[n % 2] },
    }),
  );
  const started = process.hrtime.bigint();
  const result = await autocannon({
    url,
    connections: 50,
    amount: count,
    requests: [
      {
        method: 'POST',
        path: '/apis/people.svc.run/v1alpha1/persons',
        headers: { 'content-type': 'application/json', ...auth },
        setupRequest: (req) => {
          req.body = bodies[i++];
          return req;
        },
      },
    ],
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const failed = result.non2xx + result.errors;
  if (failed > 0) throw new Error(`seeding: ${failed} creates failed`);
  return count / seconds;
}

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Node.js's arguments for `svc serve` from a built `cli.js` (this checkout's unless given), with the flags the `svc`
 * command gives itself (bin/node-flags.js): the benches start cli.js directly, so its pid is the server's.
 */
export function serveArgs(cli = path.join(repository, 'packages/server/dist/cli.js')) {
  return [...SERVE_NODE_FLAGS, cli, 'serve'];
}

/**
 * `svc serve` as replica `id` of one PostgreSQL schema, with a data directory of its own, as users run replicas
 * (bench:postgres, bench:replicas). `child` at once, so a caller can kill it whatever happens; `listening` resolves
 * with `{ id, url, pid, child }` once it serves, and rejects if it exits first.
 */
export function startPostgresReplica({ id, dataDir, databaseUrl, schema, cli }) {
  const child = spawn(process.execPath, serveArgs(cli), {
    env: {
      ...process.env,
      SVC_PORT: '0',
      SVC_HTTPS_PORT: 'off',
      SVC_DATA_DIR: dataDir,
      SVC_DATABASE_URL: databaseUrl,
      SVC_DATABASE_SCHEMA: schema,
      SVC_REPLICA_ID: id,
      SVC_PLUGINS_DIR: path.join(repository, 'plugins'),
      SVC_LOG_LEVEL: 'warn',
      SVC_ACCESS_LOG: 'off',
      SVC_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const listening = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const match = /svc listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ id, url: match[1], pid: child.pid, child });
    });
    // Once it has resolved, a later exit (a replica killed on purpose) changes nothing.
    child.on('exit', (code) => reject(new Error(`replica ${id} exited: ${code}`)));
  });
  return { child, listening };
}

/** Starts the built svc (`serve`) on a free port with the bench administrator, on `dataDir`, with the repository's
 * plugins unless `pluginsDir` says otherwise; `checkout` runs another built checkout's svc (and its plugins). */
export function startSvc(dataDir, pluginsDir, env = {}, checkout = repository) {
  return startServe(
    path.join(checkout, 'packages/server/dist/cli.js'),
    dataDir,
    pluginsDir ?? path.join(checkout, 'plugins'),
    env,
  );
}

/** As startSvc, from a built `cli.js` given by its path (SVC_BENCH_CLI's A/B builds), with the plugins of `pluginsDir`. */
export function startServe(cli, dataDir, pluginsDir, env = {}) {
  return startProcess(process.execPath, serveArgs(cli), {
    SVC_PORT: '0',
    SVC_HTTPS_PORT: 'off',
    SVC_DATA_DIR: dataDir,
    SVC_PLUGINS_DIR: pluginsDir,
    SVC_LOG_LEVEL: 'warn',
    SVC_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
    // The benches open hundreds of watches as the one administrator (bench/watch.js --watchers).
    SVC_MAX_WATCHES_PER_USER: '100000',
    ...env,
  });
}
