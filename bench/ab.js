// `node bench/ab.js <A> <B> [--rounds 5] [--duration 5]`: the main thread's CPU time per request of two builds or
// settings of svc, alternated round by round on fresh data, for GET of one object and for creates (wrk, 50
// connections, controllers off). Each side is a checkout with `npm run build` done, optionally with settings after a
// `?`: `. ?SVC_REQUEST_METRICS=off` against `.` measures what request metrics cost. On a machine shared with other
// work, CPU time per request moves far less than requests per second, so this is how a change's cost is compared.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  adminToken,
  arg,
  BENCH_ADMIN_PASSWORD,
  seedPersons,
  serveArgs,
  startProcess,
  threadCpuSeconds,
  wrkCreates,
  wrkGets,
} from './lib.js';

const builds = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
if (builds.length !== 2) throw new Error('usage: node bench/ab.js <checkout A> <checkout B> [--rounds N]');
const ROUNDS = arg('rounds', 5);
const DURATION = arg('duration', 5);
const results = new Map(builds.map((b) => [b, { get: [], create: [] }]));

for (let round = 1; round <= ROUNDS; round++) {
  for (const build of builds) {
    const [checkout, query = ''] = build.split('?');
    const settings = Object.fromEntries(new URLSearchParams(query));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-ab-'));
    const svc = await startProcess(process.execPath, serveArgs(path.join(checkout, 'packages/server/dist/cli.js')), {
      SVC_PORT: '0',
      SVC_HTTPS_PORT: 'off',
      SVC_DATA_DIR: dataDir,
      SVC_PLUGINS_DIR: path.join(checkout, 'plugins'),
      SVC_LOG_LEVEL: 'warn',
      SVC_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
      SVC_CONTROLLERS: 'off',
      ...settings,
    });
    try {
      const auth = await adminToken(svc.url);
      await seedPersons(svc.url, 2000, auth);
      const pid = svc.child.pid;
      let before = threadCpuSeconds(pid);
      const get = wrkGets(`${svc.url}/apis/people.svc.run/v1alpha1/persons/p-5`, DURATION, auth);
      const getUs = ((threadCpuSeconds(pid) - before) * 1e6) / (get.rps * DURATION);
      before = threadCpuSeconds(pid);
      const creates = wrkCreates(svc.url, DURATION, path.join(checkout, 'bench/create.lua'), auth);
      const createUs = ((threadCpuSeconds(pid) - before) * 1e6) / (creates * DURATION);
      results.get(build).get.push(getUs);
      results.get(build).create.push(createUs);
      console.log(
        `round ${round} ${build}: GET one ${get.rps.toFixed(0)} req/s, ${getUs.toFixed(1)} µs CPU each; ` +
          `create ${creates.toFixed(0)}/s, ${createUs.toFixed(1)} µs CPU each`,
      );
    } finally {
      await svc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const [a, b] = builds.map((build) => results.get(build));
console.log(`\nmedian µs of main-thread CPU per request over ${ROUNDS} rounds`);
for (const kind of ['get', 'create']) {
  const ma = median(a[kind]);
  const mb = median(b[kind]);
  // The machine drifts over a run (other work, its host): each round's B against the A measured just before it is the
  // steadier ratio, so its median is printed too, with the range of the rounds' ratios.
  const paired = a[kind].map((value, round) => b[kind][round] / value).sort((x, y) => x - y);
  const percent = (ratio) => `${(ratio * 100).toFixed(1)}%`;
  console.log(
    `${kind.padEnd(7)} A ${ma.toFixed(1)}  B ${mb.toFixed(1)}  B/A ${percent(mb / ma)}; ` +
      `per round B/A median ${percent(median(paired))} (${percent(paired[0])}–${percent(paired.at(-1))})`,
  );
}
