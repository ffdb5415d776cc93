// `npm run bench:console`: the console's figures of docs/performance.md, measured in Debian's Chromium.
// 1. The first load's transfer: JS and CSS bytes as sent (gzip), for the sign-in page and then the overview after
//    signing in (target <= 300 KB).
// 2. With 100,000 persons stored, the time from navigating to the resource browser's persons page until its first
//    page of rows is on screen (target <= 500 ms), the median of several runs; then the same for the people plugin's
//    own Persons page (/console/persons, sorted by name, live).
// Usage: node bench/console.js [--persons 100000] [--runs 7] [--trace (the last run's requests, in ms)]
//   [--against <checkout>]: also a baseline, another built checkout (`git worktree add /tmp/base main && cd /tmp/base
//   && npm install`), its svc on a copy of the same data, the two pages opened alternately, run by run, in one browser;
//   the figures of both and their ratio, so a change is judged against a baseline measured under the same load.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { adminToken, arg, BENCH_ADMIN_PASSWORD, seedPersons, startSvc } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PERSONS = arg('persons', 100_000);
const RUNS = arg('runs', 7);
const TRACE = process.argv.includes('--trace');
const againstAt = process.argv.indexOf('--against');
const AGAINST = againstAt > 0 ? path.resolve(process.argv[againstAt + 1]) : undefined;
const PERSONS_PAGE = '/console/resources/people.svc.run/v1alpha1/persons';

if (!existsSync(path.join(root, 'packages/console/dist/index.html'))) {
  console.log('building the console (packages/console/dist) …');
  execFileSync('npm', ['run', 'build', '-w', 'packages/console'], { cwd: root, stdio: 'inherit' });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** Sums the bytes received for the page's scripts and style sheets (as sent: gzip-encoded), until `stop()`. */
function countTransfer(page) {
  const pending = [];
  const files = [];
  const onResponse = (response) => {
    const type = response.request().resourceType();
    if (type !== 'script' && type !== 'stylesheet') return;
    pending.push(
      response
        .request()
        .sizes()
        .then((sizes) => files.push({ url: response.url(), type, bytes: sizes.responseBodySize })),
    );
  };
  page.on('response', onResponse);
  return async () => {
    page.off('response', onResponse);
    await Promise.all(pending);
    return files;
  };
}

/**
 * CPU milliseconds the page's renderer main thread has used (Chromium's ThreadTime metric): unlike wall time, it hardly
 * moves when other work shares the machine, so it compares builds where the wall-clock figure cannot.
 */
async function mainThreadBusy(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'ThreadTime').value * 1000;
}

/** Waits until a process spends under 5% of a core for a second: the people controller has caught up. */
async function untilIdle(pid) {
  const cpu = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const started = Date.now();
  let before = cpu();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = cpu();
    if (now - before < 0.05) break;
    before = now;
  }
  console.log(`server idle after ${((Date.now() - started) / 1000).toFixed(0)} s more (the people controller's work)`);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-console-'));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium' });
let server;
let baseline;
try {
  server = await startSvc(dataDir);
  console.log(`svc console benchmark: ${server.url}, ${PERSONS} persons, ${RUNS} runs\n`);

  // 1. First load: a new browser profile (empty cache) opens the console, signs in, and lands on the overview. The
  //    browser is English, so the Chinese messages are not fetched (they load only when chosen; 1b measures that).
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  const stop = countTransfer(page);
  await page.goto(`${server.url}/console/`);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(BENCH_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  // The overview's chunks are in once it renders; a watch the console keeps open means the network is never idle.
  await page.waitForLoadState('load');
  const files = await stop();
  const js = files.filter((f) => f.type === 'script').reduce((n, f) => n + f.bytes, 0);
  const css = files.filter((f) => f.type === 'stylesheet').reduce((n, f) => n + f.bytes, 0);
  console.log(`first load (sign-in page, then the overview): ${files.length} files`);
  console.log(`  JS  ${kb(js).padStart(10)}`);
  console.log(`  CSS ${kb(css).padStart(10)}`);
  console.log(`  JS + CSS transferred (gzip) ${kb(js + css)}   target <= 300 KB`);
  console.log(`  of which Chinese messages: ${files.filter((f) => /zh-CN/.test(f.url)).length} files\n`);

  // 1b. The same first load in a Chinese browser: the console's and the people plugin's Chinese chunks come too.
  const zhContext = await browser.newContext({ locale: 'zh-CN' });
  const zhPage = await zhContext.newPage();
  const zhStop = countTransfer(zhPage);
  await zhPage.goto(`${server.url}/console/`);
  await zhPage.getByLabel('用户名').fill('admin');
  await zhPage.getByLabel('密码').fill(BENCH_ADMIN_PASSWORD);
  await zhPage.getByRole('button', { name: '登录' }).click();
  await zhPage.getByRole('heading', { name: '概览' }).waitFor();
  await zhPage.waitForLoadState('load');
  const zhFiles = await zhStop();
  const zhBytes = zhFiles.reduce((n, f) => n + f.bytes, 0);
  const zhChunks = zhFiles.filter((f) => /zh-CN/.test(f.url)).reduce((n, f) => n + f.bytes, 0);
  console.log(`first load in Chinese: JS + CSS (gzip) ${kb(zhBytes)}, of which Chinese messages ${kb(zhChunks)}\n`);
  await zhContext.close();

  // 2. 100,000 persons, then the persons page of the resource browser.
  const started = Date.now();
  const rate = await seedPersons(server.url, PERSONS, await adminToken(server.url));
  console.log(`seeded ${PERSONS} persons in ${((Date.now() - started) / 1000).toFixed(0)} s (${rate.toFixed(0)}/s)`);
  await untilIdle(server.child.pid);
  const sides = [{ name: 'this checkout', url: server.url, context }];
  if (AGAINST) {
    // The baseline's svc on a copy of the same data (SQLite copied while no svc has it open).
    await server.stop();
    const baselineDir = `${dataDir}-baseline`;
    cpSync(dataDir, baselineDir, { recursive: true });
    server = await startSvc(dataDir);
    baseline = await startSvc(baselineDir, undefined, {}, AGAINST);
    baseline.dir = baselineDir;
    await untilIdle(server.child.pid);
    await untilIdle(baseline.child.pid);
    sides[0].url = server.url;
    for (const side of [sides[0], { name: `baseline ${AGAINST}`, url: baseline.url }]) {
      side.context ??= await browser.newContext({ locale: 'en-US' });
      const signedIn = await side.context.request.post(`${side.url}/login`, {
        data: { username: 'admin', password: BENCH_ADMIN_PASSWORD },
      });
      if (!signedIn.ok()) throw new Error(`sign-in at ${side.url}: ${signedIn.status()}`);
      if (side !== sides[0]) sides.push(side);
    }
  }

  /** Opens `pagePath` on `side` once: the time until the first frame showing a cell `cellPattern` matches, and CPU. */
  async function openOnce(side, pagePath, cellPattern, trace) {
    const tab = await side.context.newPage();
    await tab.goto('about:blank');
    const cdp = await side.context.newCDPSession(tab);
    await cdp.send('Performance.enable');
    const busyBefore = await mainThreadBusy(cdp);
    await tab.goto(`${side.url}${pagePath}`, { waitUntil: 'commit' });
    // performance.now() counts from the navigation's start; read at the first frame that shows a person's row.
    const handle = await tab.waitForFunction(
      (pattern) => {
        const cells = [...document.querySelectorAll('main table tbody tr td')];
        const match = new RegExp(pattern);
        return cells.some((cell) => match.test(cell.textContent?.trim() ?? '')) && performance.now();
      },
      cellPattern,
      { polling: 'raf', timeout: 30_000 },
    );
    const ms = await handle.jsonValue();
    const busy = (await mainThreadBusy(cdp)) - busyBefore;
    if (trace) {
      const entries = await tab.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((e) => `${e.startTime.toFixed(0).padStart(5)} → ${e.responseEnd.toFixed(0).padStart(5)}  ${e.name}`),
      );
      console.log(entries.join('\n'));
    }
    await tab.close();
    return { ms, busy };
  }

  /** Opens `pagePath` RUNS + 1 times on each side, the sides alternating; the first, cold, run is not counted. */
  async function measure(title, pagePath, cellPattern) {
    const results = sides.map(() => ({ times: [], busyTimes: [] }));
    for (let run = 0; run <= RUNS; run++) {
      for (const [i, side] of sides.entries()) {
        const { ms, busy } = await openOnce(side, pagePath, cellPattern, TRACE && run === RUNS);
        // The first run fills the HTTP cache of the console's files, as any visit after the first finds it.
        if (run > 0) {
          results[i].times.push(ms);
          results[i].busyTimes.push(busy);
        }
        const who = sides.length > 1 ? ` ${side.name}` : '';
        console.log(
          `  run ${run}${who}${run === 0 ? ' (cold cache, not counted)' : ''}: ${ms.toFixed(0)} ms (page's main thread CPU ${busy.toFixed(0)} ms)`,
        );
      }
    }
    for (const [i, side] of sides.entries()) {
      const who = sides.length > 1 ? ` (${side.name})` : '';
      console.log(
        `\n${title}${who}, ${PERSONS} persons: navigation to first page rendered, median of ${RUNS}: ${median(results[i].times).toFixed(0)} ms   target <= 500 ms`,
      );
      console.log(`  the page's main thread CPU time (median): ${median(results[i].busyTimes).toFixed(0)} ms`);
    }
    if (sides.length > 1) {
      const [a, b] = results;
      console.log(
        `  this checkout / baseline: time ${(median(a.times) / median(b.times)).toFixed(2)}, CPU ${(median(a.busyTimes) / median(b.busyTimes)).toFixed(2)}`,
      );
    }
    console.log('');
  }

  await measure('resource browser', PERSONS_PAGE, '^p-\\d+$');
  // 3. The people plugin's own Persons page (a plugin UI, live through useLiveList), sorted by name.
  await measure("people plugin's Persons page", '/console/persons', '^Person \\d+$');
  console.log(
    `  load average while measuring: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (2 cores shared)`,
  );
  for (const side of sides) await side.context.close();
} finally {
  await browser.close();
  await server?.stop();
  await baseline?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (baseline) rmSync(baseline.dir, { recursive: true, force: true });
}
