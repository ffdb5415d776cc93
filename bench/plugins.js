// `npm run bench:plugins`: the plugin lifecycle figures of docs/performance.md.
// - start of a plugin whose model holds --persons objects (target: STARTED in under 3 s), against the same start with
//   no objects, measured in the same run;
// - --cycles stop/start cycles in one process (target: memory growth under 50 MB), and what loading new code costs.
// Usage: node bench/plugins.js [--persons 100000] [--cycles 1000] [--reloads 300]
import { cpSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminToken, arg, rssOf, seedPersons, sleep, startSvc } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PERSONS = arg('persons', 100_000);
const CYCLES = arg('cycles', 1000);
const RELOADS = arg('reloads', 300);
const STATE = '/apis/api.console.svc.run/v1alpha1/plugins/people/plugin-state';
const MB = 1024 * 1024;

async function setState(url, auth, enable) {
  const started = process.hrtime.bigint();
  const response = await fetch(`${url}${STATE}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ enable }),
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const body = await response.json();
  const expected = enable ? 'STARTED' : 'STOPPED';
  if (response.status !== 200 || body.status?.phase !== expected) {
    throw new Error(`plugin-state ${enable}: ${response.status} ${JSON.stringify(body.status ?? body)}`);
  }
  return ms;
}

/** Best of `runs` starts (each after a stop), in ms. */
async function timeStarts(url, auth, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    await setState(url, auth, false);
    times.push(await setState(url, auth, true));
  }
  return Math.min(...times);
}

const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-plugins-'));
try {
  console.log(`plugin lifecycle benchmark: ${PERSONS} persons, ${CYCLES} stop/start cycles, ${RELOADS} code reloads\n`);
  // A copy of the people plugin, so touching its files (new code) leaves the repository alone.
  const plugins = path.join(work, 'plugins');
  cpSync(path.join(root, 'plugins/people'), path.join(plugins, 'people'), {
    recursive: true,
    filter: (src) => !src.includes('node_modules'),
  });

  const server = await startSvc(path.join(work, 'data'), plugins);
  const auth = await adminToken(server.url);
  const emptyStart = await timeStarts(server.url, auth, 3);
  console.log(`start, model with 3 objects (baseline)                     ${emptyStart.toFixed(0).padStart(7)} ms`);
  await seedPersons(server.url, PERSONS, auth);
  await sleep(2000); // let the people controller finish its status writes
  const fullStart = await timeStarts(server.url, auth, 3);
  console.log(
    `start, model with ${PERSONS} objects (index build)`.padEnd(58) +
      ` ${fullStart.toFixed(0).padStart(7)} ms  (${(fullStart / emptyStart).toFixed(1)}x baseline)  target < 3000 ms`,
  );
  await server.stop();

  // Cycles on a small store, so the figure is about the lifecycle, not the index.
  const cycling = await startSvc(path.join(work, 'data-cycles'), plugins);
  const cyclingAuth = await adminToken(cycling.url);
  for (let i = 0; i < 50; i++)
    await setState(cycling.url, cyclingAuth, false).then(() => setState(cycling.url, cyclingAuth, true));
  const before = rssOf(cycling.child.pid);
  const started = Date.now();
  for (let i = 0; i < CYCLES; i++) {
    await setState(cycling.url, cyclingAuth, false);
    await setState(cycling.url, cyclingAuth, true);
  }
  const seconds = (Date.now() - started) / 1000;
  await sleep(1000);
  const after = rssOf(cycling.child.pid);
  console.log(
    `${CYCLES} stop/start cycles, same code: RSS growth`.padEnd(58) +
      ` ${((after - before) / MB).toFixed(1).padStart(7)} MB  (${(before / MB) | 0} → ${(after / MB) | 0} MB, ${((seconds * 1000) / CYCLES).toFixed(1)} ms per cycle)  target < 50 MB`,
  );

  // New code at every start: Node keeps every ES module it has loaded, so each generation stays resident.
  const reloadBefore = rssOf(cycling.child.pid);
  for (let i = 0; i < RELOADS; i++) {
    const when = new Date(Date.now() + (i + 1) * 1000);
    utimesSync(path.join(plugins, 'people/dist/index.js'), when, when);
    await setState(cycling.url, cyclingAuth, false);
    await setState(cycling.url, cyclingAuth, true);
  }
  await sleep(1000);
  const reloadAfter = rssOf(cycling.child.pid);
  console.log(
    `${RELOADS} starts each on new code: RSS growth per load`.padEnd(58) +
      ` ${((reloadAfter - reloadBefore) / RELOADS / 1024).toFixed(0).padStart(7)} KB`,
  );
  await cycling.stop();
} finally {
  rmSync(work, { recursive: true, force: true });
}
