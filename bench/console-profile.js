// The people plugin's Persons page's main-thread CPU, this checkout against another, with a CPU profile of each open.
// Wall time hardly says anything on a shared machine; the renderer's own CPU (ThreadTime) and where a profile puts it do.
// Usage: node bench/console-profile.js --against <built checkout> [--runs 5] [--persons 2000] [--top 15]
//   Prints per side the median main-thread CPU of opening /console/persons until its first row shows, and the
//   functions with the most self time (summed over the runs, by script file and name).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { adminToken, arg, BENCH_ADMIN_PASSWORD, seedPersons, startSvc } from './lib.js';

const RUNS = arg('runs', 5);
const PERSONS = arg('persons', 2000);
const TOP = arg('top', 15);
const againstAt = process.argv.indexOf('--against');
const AGAINST = againstAt > 0 ? path.resolve(process.argv[againstAt + 1]) : undefined;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium' });
const sides = [{ name: 'this checkout' }, ...(AGAINST ? [{ name: `baseline ${AGAINST}`, checkout: AGAINST }] : [])];
try {
  for (const side of sides) {
    side.dir = mkdtempSync(path.join(tmpdir(), 'svc-console-profile-'));
    side.server = await startSvc(side.dir, undefined, {}, side.checkout);
    await seedPersons(side.server.url, PERSONS, await adminToken(side.server.url));
    side.context = await browser.newContext({ locale: 'en-US' });
    const signedIn = await side.context.request.post(`${side.server.url}/login`, {
      data: { username: 'admin', password: BENCH_ADMIN_PASSWORD },
    });
    if (!signedIn.ok()) throw new Error(`sign-in: ${signedIn.status()}`);
    side.busy = [];
    side.self = new Map();
  }
  for (let run = 0; run <= RUNS; run++) {
    for (const side of sides) {
      const tab = await side.context.newPage();
      await tab.goto('about:blank');
      const cdp = await side.context.newCDPSession(tab);
      await cdp.send('Performance.enable');
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      const before = (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime').value;
      await cdp.send('Profiler.start');
      await tab.goto(`${side.server.url}/console/persons`, { waitUntil: 'commit' });
      await tab.waitForFunction(
        () => [...document.querySelectorAll('main table tbody tr td')].some((c) => /^Person \d+$/.test(c.textContent)),
        undefined,
        { polling: 'raf', timeout: 30_000 },
      );
      const { profile } = await cdp.send('Profiler.stop');
      const after = (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime').value;
      const busy = (after - before) * 1000;
      if (run > 0) {
        side.busy.push(busy);
        addSelfTimes(profile, side.self);
      }
      console.log(
        `run ${run} ${side.name}: main-thread CPU ${busy.toFixed(0)} ms${run === 0 ? ' (cold, not counted)' : ''}`,
      );
      await tab.close();
    }
  }
  for (const side of sides) {
    console.log(`\n${side.name}: median main-thread CPU of ${RUNS}: ${median(side.busy).toFixed(0)} ms`);
    const top = [...side.self].sort((a, b) => b[1] - a[1]).slice(0, TOP);
    for (const [where, ms] of top) console.log(`  ${(ms / RUNS).toFixed(1).padStart(7)} ms/run  ${where}`);
    const files = new Map();
    for (const [where, ms] of side.self) {
      const file = where.includes(' ') ? where.slice(where.lastIndexOf(' ') + 1) : where;
      files.set(file, (files.get(file) ?? 0) + ms);
    }
    console.log('  by script file:');
    for (const [file, ms] of [...files].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
      console.log(`  ${(ms / RUNS).toFixed(1).padStart(7)} ms/run  ${file}`);
    }
  }
  if (sides.length > 1) {
    console.log(`\nthis / baseline CPU: ${(median(sides[0].busy) / median(sides[1].busy)).toFixed(2)}`);
  }
  console.log(
    `load average: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await browser.close();
  for (const side of sides) {
    await side.server?.stop();
    if (side.dir) rmSync(side.dir, { recursive: true, force: true });
  }
}

/** Adds a profile's self time per function (script file without its hash, and name) into `into`, in ms. */
function addSelfTimes(profile, into) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i]);
    const frame = node.callFrame;
    const file = frame.url
      ? frame.url
          .split('/')
          .pop()
          .replace(/-[\w-]{8}\.js$/, '.js')
      : '';
    const key = `${frame.functionName || '(anonymous)'} ${file}`.trim();
    into.set(key, (into.get(key) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
  }
}
