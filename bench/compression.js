// `npm run bench:compression`: what compressing a JSON answer costs the server, and what it saves on the wire. A page
// of 20 persons (about 11 KB of JSON) is read with wrk as a client asking for no encoding, gzip and br, in alternated
// rounds, each reporting requests per second, main-thread CPU per request and bytes per answer.
// Usage: node bench/compression.js [--rounds 3] [--duration 5]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminToken, arg, seedPersons, startSvc, threadCpuSeconds, wrkGets } from './lib.js';

const ROUNDS = arg('rounds', 3);
const DURATION = arg('duration', 5);
const PAGE = '/apis/people.svc.run/v1alpha1/persons?size=20';
const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-compression-'));
const svc = await startSvc(dataDir, undefined, { SVC_CONTROLLERS: 'off' });
try {
  const auth = await adminToken(svc.url);
  await seedPersons(svc.url, 1000, auth);
  const results = { identity: [], gzip: [], br: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const encoding of Object.keys(results)) {
      const headers = { ...auth, 'accept-encoding': encoding };
      const before = threadCpuSeconds(svc.child.pid);
      const load = wrkGets(`${svc.url}${PAGE}`, DURATION, headers);
      const cpuUs = ((threadCpuSeconds(svc.child.pid) - before) * 1e6) / (load.rps * DURATION);
      const args = [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{size_download}',
        ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
      ];
      const bytes = Number(execFileSync('curl', [...args, `${svc.url}${PAGE}`], { encoding: 'utf8' }));
      results[encoding].push({ rps: load.rps, cpuUs, bytes });
      console.log(
        `round ${round} ${encoding.padEnd(8)} ${load.rps.toFixed(0).padStart(6)} req/s  ${cpuUs.toFixed(1).padStart(6)} µs CPU each  ${bytes} bytes`,
      );
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const base = median(results.identity.map((r) => r.cpuUs));
  console.log('\nmedian over the rounds');
  for (const [encoding, runs] of Object.entries(results)) {
    const cpu = median(runs.map((r) => r.cpuUs));
    console.log(
      `${encoding.padEnd(8)} ${cpu.toFixed(1)} µs CPU per answer (${((cpu / base) * 100).toFixed(0)}% of identity), ` +
        `${runs[0].bytes} bytes, ${median(runs.map((r) => r.rps)).toFixed(0)} req/s`,
    );
  }
} finally {
  await svc.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
