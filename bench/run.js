// `npm run bench`: the figures of docs/performance.md, as ratios against a baseline measured in the same run.
// Usage: node bench/run.js [--persons 100000] [--duration 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminToken, arg, hasWrk, load, rssOf, seedPersons, sleep, startProcess, startSvc, wrkCreates } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PERSONS = arg('persons', 100_000);
const DURATION = arg('duration', 5);
const BASE = '/apis/people.svc.run/v1alpha1/persons';
const results = [];
const report = (name, value, unit, baseline, target) => {
  const ratio = baseline ? value / baseline : undefined;
  results.push({ name, value, unit, baseline, ratio, target });
  const r = ratio === undefined ? '' : `  (${(ratio * 100).toFixed(1)}% of baseline ${baseline.toFixed(0)})`;
  console.log(
    `${name.padEnd(58)} ${value.toFixed(unit === 'x' ? 2 : 0).padStart(9)} ${unit}${r}${target ? `  target ${target}` : ''}`,
  );
};

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-'));
try {
  console.log(`svc benchmark: ${PERSONS} persons, ${DURATION}s per load run, 50 connections\n`);
  const baseline = await startProcess(process.execPath, [path.join(root, 'bench/baseline-server.js')]);
  const base = await load({ url: `${baseline.url}/doc/x`, duration: DURATION });
  report('baseline: bare Fastify GET of a 1 KB JSON from a Map', base.rps, 'req/s');
  const createScript = path.join(root, 'bench/create.lua');
  const baseCreate = hasWrk ? wrkCreates(baseline.url, DURATION, createScript) : undefined;
  if (baseCreate) report('baseline: bare Fastify POST, parse and keep in a Map (wrk)', baseCreate, 'req/s');
  await baseline.stop();

  const empty = await startSvc(path.join(dataDir, 'empty'));
  await sleep(500);
  const emptyRss = rssOf(empty.child.pid);
  await empty.stop();

  if (hasWrk) {
    // Controllers off: the API's create path alone (bench/controllers.js measures creates with their reconciliation).
    const fresh = await startSvc(path.join(dataDir, 'creates'), undefined, { SVC_CONTROLLERS: 'off' });
    const freshAuth = await adminToken(fresh.url);
    report(
      'create over HTTP, 50 in flight (wrk)',
      wrkCreates(fresh.url, DURATION, createScript, freshAuth),
      'objects/s',
      baseCreate,
      '>= 10000',
    );
    await fresh.stop();
  } else {
    console.log('  (install wrk for the create figure: autocannon saturates its own core before the server does)');
  }
  let server = await startSvc(path.join(dataDir, 'full'));
  const auth = await adminToken(server.url);
  report('create while seeding (autocannon, 50 in flight)', await seedPersons(server.url, PERSONS, auth), 'objects/s');

  const get = await load({
    url: `${server.url}${BASE}/p-${Math.min(4242, PERSONS - 1)}`,
    duration: DURATION,
    headers: auth,
  });
  report('GET one object', get.rps, 'req/s', base.rps, '>= 40%');
  const filtered = await load({
    url: `${server.url}${BASE}?fieldSelector=spec.gender=FEMALE&sort=spec.age,desc&size=20`,
    duration: DURATION,
    headers: auth,
  });
  report(`list ${PERSONS}: gender=FEMALE, sort age desc, size 20`, filtered.rps, 'req/s', base.rps, '>= 10%');
  const firstPage = await load({ url: `${server.url}${BASE}?size=20`, duration: DURATION, headers: auth });
  report(`list ${PERSONS}: default order, first page of 20`, firstPage.rps, 'req/s', base.rps, '>= 20%');
  for (const run of [get, filtered, firstPage]) if (run.errors) console.log(`  (errors in a run: ${run.errors})`);

  const sample = await (await fetch(`${server.url}${BASE}?size=200&page=3`, { headers: auth })).json();
  const avgJson = sample.items.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0) / sample.items.length;
  await server.stop();

  server = await startSvc(path.join(dataDir, 'full'));
  report(`boot with ${PERSONS} stored persons to serving`, server.bootMs, 'ms', undefined, '< 3000');
  await sleep(500);
  const perPerson = (rssOf(server.child.pid) - emptyRss) / PERSONS;
  report('resident memory per stored person / its JSON size', perPerson / avgJson, 'x', undefined, '< 3');
  console.log(`  (${perPerson.toFixed(0)} bytes per person, average JSON ${avgJson.toFixed(0)} bytes)`);
  await server.stop();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
