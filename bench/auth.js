// The authorization figures of docs/performance.md: GET one object as a token-authenticated user holding a role
// template, against the same GET as the super administrator (also by token) and against the bare-route baseline, all
// in one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_ADMIN_PASSWORD, createUser, load, login, startProcess, startSvc, tokenHeader } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATION = Number(process.argv[process.argv.indexOf('--duration') + 1]) || 5;
const PERSONS = '/apis/people.svc.run/v1alpha1/persons';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-auth-'));
try {
  const baseline = await startProcess(process.execPath, [path.join(root, 'bench/baseline-server.js')]);
  const base = await load({ url: `${baseline.url}/doc/x`, duration: DURATION });
  await baseline.stop();

  const server = await startSvc(dataDir);
  const admin = await login(server.url, 'admin', BENCH_ADMIN_PASSWORD);
  await createUser(server.url, 'viewer', 'viewer-password', ['people-role-view-persons']);
  const viewer = await login(server.url, 'viewer', 'viewer-password');
  const adminAuth = await tokenHeader(server.url, admin, ['super-role']);
  const viewerAuth = await tokenHeader(server.url, viewer, ['people-role-view-persons']);

  const url = `${server.url}${PERSONS}/ada`;
  // Warm up (JIT, caches) before measuring, so the first measured run is not the slowest by construction.
  await load({ url, duration: DURATION, headers: adminAuth });
  await load({ url, duration: DURATION, headers: viewerAuth });
  // Interleaved, best of two each: this machine is shared and noisy, and a burst of other work should not decide the ratio.
  const runs = { admin: [], viewer: [] };
  for (let round = 0; round < 2; round++) {
    runs.admin.push(await load({ url, duration: DURATION, headers: adminAuth }));
    runs.viewer.push(await load({ url, duration: DURATION, headers: viewerAuth }));
  }
  const best = (list) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
  const asAdmin = best(runs.admin);
  const asViewer = best(runs.viewer);
  await server.stop();
  for (const run of [asAdmin, asViewer]) if (run.errors) throw new Error(`${run.errors} requests failed`);

  const pct = (a, b) => `${((a / b) * 100).toFixed(1)}%`;
  console.log(`baseline: bare Fastify GET of a 1 KB JSON from a Map   ${base.rps.toFixed(0)} req/s`);
  console.log(
    `GET one object, super administrator (token)            ${asAdmin.rps.toFixed(0)} req/s  (${pct(asAdmin.rps, base.rps)} of baseline)`,
  );
  console.log(
    `GET one object, user with a view template (token)      ${asViewer.rps.toFixed(0)} req/s  (${pct(asViewer.rps, asAdmin.rps)} of super administrator, target >= 80%; ${pct(asViewer.rps, base.rps)} of baseline, target >= 30%)`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
