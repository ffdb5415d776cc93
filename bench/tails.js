// `npm run bench:tails`: the reads' latency tails. Each round measures, back to back, a bare Fastify GET, then svc's
// reads of `npm run bench` (100,000 persons, controllers off): GET one as the super administrator and as a user holding
// the view template, the filtered, sorted page and the default page, each with wrk -t1 -c50 --latency after a 2 s
// warm-up, and prints mean, p50 and p99 with p99 as a multiple of the mean (target: under 5 for every read).
// Usage: node bench/tails.js [--persons 100000] [--rounds 3] [--duration 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  adminToken,
  arg,
  createUser,
  hasWrk,
  login,
  seedPersons,
  startProcess,
  startSvc,
  tokenHeader,
  wrkGets,
} from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PERSONS = arg('persons', 100_000);
const ROUNDS = arg('rounds', 3);
const DURATION = arg('duration', 5);
const BASE = '/apis/people.svc.run/v1alpha1/persons';
if (!hasWrk) {
  console.log('bench:tails needs wrk (apt-get install -y wrk)');
  process.exit(1);
}

/** A wrk run after a warm-up, as `mean / p50 / p99 ms (p99 N× mean)`. */
function measured(url, headers) {
  wrkGets(url, 2, headers);
  const run = wrkGets(url, DURATION, headers);
  const tail = run.p99Ms / run.meanMs;
  return `${run.rps.toFixed(0)} req/s, mean ${run.meanMs} ms, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms (${tail.toFixed(1)}x mean)`;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-tails-'));
try {
  const seeding = await startSvc(dataDir, undefined, { SVC_CONTROLLERS: 'off' });
  await seedPersons(seeding.url, PERSONS, await adminToken(seeding.url));
  // A user holding only the people plugin's view template, as bench/auth.js makes one.
  await createUser(seeding.url, 'viewer', 'viewer-password', ['people-role-view-persons']);
  await seeding.stop();
  console.log(`read tails: ${PERSONS} persons, wrk -t1 -c50, ${DURATION} s per run after a 2 s warm-up\n`);
  for (let round = 1; round <= ROUNDS; round++) {
    const baseline = await startProcess(process.execPath, [path.join(root, 'bench/baseline-server.js')]);
    console.log(`round ${round}: bare GET          ${measured(`${baseline.url}/doc/x`)}`);
    await baseline.stop();
    const svc = await startSvc(dataDir, undefined, { SVC_CONTROLLERS: 'off' });
    const auth = await adminToken(svc.url);
    const viewer = await tokenHeader(svc.url, await login(svc.url, 'viewer', 'viewer-password'), [
      'people-role-view-persons',
    ]);
    const one = `${svc.url}${BASE}/p-${PERSONS / 2 + 7}`;
    console.log(`round ${round}: svc GET one       ${measured(one, auth)}`);
    console.log(`round ${round}: svc GET one, view ${measured(one, viewer)}`);
    const page = `${BASE}?fieldSelector=spec.gender=FEMALE&sort=spec.age,desc&size=20`;
    console.log(`round ${round}: svc filtered page ${measured(`${svc.url}${page}`, auth)}`);
    console.log(`round ${round}: svc default page  ${measured(`${svc.url}${BASE}?size=20`, auth)}`);
    await svc.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
