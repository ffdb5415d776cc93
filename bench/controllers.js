// `npm run bench:controllers`: how soon creates are reconciled, not just acknowledged. Each round, back to back:
// 1. svc with controllers off (SVC_CONTROLLERS=off) takes wrk creates of Persons for D s: the raw create rate;
// 2. svc with controllers on takes the same burst, and the bench then reads /metrics every 50 ms until the people
//    controller's queue is empty and no worker is busy. The drain is the time from the burst's end to then;
//    sustained creates = persons created / (D + drain), reported as a share of the raw rate. Every person's status
//    is then checked through the API (a list), so "drained" means reconciled.
// Usage: node bench/controllers.js [--rounds 3] [--duration 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminToken, arg, hasWrk, readMetrics, sleep, startSvc, threadCpuSeconds, wrkCreateRun } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = arg('rounds', 3);
const DURATION = arg('duration', 5);
const script = path.join(root, 'bench/create.lua');
const PERSONS = '/apis/people.svc.run/v1alpha1/persons';
const PEOPLE = 'controller="person-status",owner="plugin:people"';
if (!hasWrk) {
  console.log('bench:controllers needs wrk (apt-get install -y wrk)');
  process.exit(1);
}

async function metrics(url, auth) {
  const value = await readMetrics(url, auth);
  return {
    depth: value('workqueue_depth{name="person-status",owner="plugin:people"}'),
    active: value(`controller_runtime_active_workers{${PEOPLE}}`),
    reconciles: value(`controller_runtime_reconcile_total{${PEOPLE},result="success"}`),
    errors: value(`controller_runtime_reconcile_total{${PEOPLE},result="error"}`),
  };
}

/** Persons without a Ready status, read page by page. */
async function unreconciled(url, auth) {
  let missing = 0;
  let total = 0;
  let next = '';
  do {
    const page = await (await fetch(`${url}${PERSONS}?limit=5000${next}`, { headers: auth })).json();
    for (const p of page.items) {
      total++;
      if (p.status?.conditions?.[0]?.status !== 'True' || !p.metadata.finalizers?.length) missing++;
    }
    next = page.metadata.continue ? `&continue=${encodeURIComponent(page.metadata.continue)}` : '';
  } while (next);
  return { missing, total };
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-controllers-'));
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const off = await startSvc(path.join(dataDir, `off-${round}`), undefined, { SVC_CONTROLLERS: 'off' });
    const raw = wrkCreateRun(off.url, DURATION, script, await adminToken(off.url), off.child.pid);
    await off.stop();

    const on = await startSvc(path.join(dataDir, `on-${round}`));
    const auth = await adminToken(on.url);
    const cpuBefore = threadCpuSeconds(on.child.pid);
    const burst = wrkCreateRun(on.url, DURATION, script, auth, on.child.pid);
    const burstEnded = performance.now();
    let m = await metrics(on.url, auth);
    let peakDepth = m.depth;
    while (m.depth > 0 || m.active > 0) {
      await sleep(50);
      m = await metrics(on.url, auth);
      peakDepth = Math.max(peakDepth, m.depth);
    }
    const drainS = (performance.now() - burstEnded) / 1000;
    const cpuPerPerson = ((threadCpuSeconds(on.child.pid) - cpuBefore) / burst.total) * 1e6;
    const check = await unreconciled(on.url, auth);
    await on.stop();
    const sustained = burst.total / (DURATION + drainS);
    const perPerson = m.reconciles / burst.total;
    console.log(
      `round ${round}: raw creates ${raw.rps.toFixed(0)}/s (controllers off); with the people controller ` +
        `${burst.rps.toFixed(0)}/s acknowledged, ${burst.total} persons reconciled ${drainS.toFixed(2)} s after the ` +
        `burst (queue ${peakDepth} at its end; ${perPerson.toFixed(2)} reconciles per person, ${m.errors} errors): ` +
        `sustained ${sustained.toFixed(0)}/s = ${((sustained / raw.rps) * 100).toFixed(1)}% of raw ` +
        `(target ≥ 60%, drain ≤ 2 s); main thread ${cpuPerPerson.toFixed(0)} µs per reconciled person against ` +
        `${raw.mainCpuMicrosPerCreate.toFixed(0)} µs per raw create; unreconciled ${check.missing} of ${check.total}`,
    );
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
