// `npm run bench:creates`: only the create figure, repeated. Each round measures, back to back, the bare Fastify POST
// baseline, the same POST with a group-committed SQLite insert (bench/baseline-store-server.js) and svc, and reports
// creates per second, svc's ratio to the bare POST, and the CPU time each main thread spent per create (the figure
// to compare between two builds: it moves far less than requests per second when other work shares the machine).
// Usage: node bench/creates.js [--rounds 3] [--duration 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminToken, arg, hasWrk, startProcess, startSvc, wrkCreateRun } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = arg('rounds', 3);
const DURATION = arg('duration', 5);
const script = path.join(root, 'bench/create.lua');
if (!hasWrk) {
  console.log('bench:creates needs wrk (apt-get install -y wrk)');
  process.exit(1);
}
const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-creates-'));
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const baseline = await startProcess(process.execPath, [path.join(root, 'bench/baseline-server.js')]);
    const base = wrkCreateRun(baseline.url, DURATION, script, {}, baseline.child.pid);
    await baseline.stop();
    const stored = await startProcess(process.execPath, [path.join(root, 'bench/baseline-store-server.js')]);
    const floor = wrkCreateRun(stored.url, DURATION, script, {}, stored.child.pid);
    await stored.stop();
    // The API's create path alone: with controllers on, the people controller's finalizer and status writes share
    // the core (npm run bench:controllers measures creates with their reconciliation).
    const svc = await startSvc(path.join(dataDir, `round-${round}`), undefined, { SVC_CONTROLLERS: 'off' });
    const run = wrkCreateRun(svc.url, DURATION, script, await adminToken(svc.url), svc.child.pid);
    await svc.stop();
    console.log(
      `round ${round}: svc ${run.rps.toFixed(0)} creates/s (${((run.rps / base.rps) * 100).toFixed(1)}% of bare POST ` +
        `${base.rps.toFixed(0)}/s; target 10000/s); main thread ${run.mainCpuMicrosPerCreate.toFixed(1)} µs per create ` +
        `(bare POST ${base.mainCpuMicrosPerCreate.toFixed(1)} µs; bare POST + SQLite group commit ` +
        `${floor.rps.toFixed(0)}/s, ${floor.mainCpuMicrosPerCreate.toFixed(1)} µs)`,
    );
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
