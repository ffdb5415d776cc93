// `npm run bench:plugin-rollback`: how long an upgrade that fails to start takes to have the previous version serving
// again (docs/plugins.md "Upgrades and rollback"), against a normal upgrade to a version that starts, in the same run.
// Each measure runs from the upgrade request to the plugin's route answering the expected version (the upgrade's own
// answer included). One svc on SQLite; a tiny plugin (one route), so the figure is the lifecycle's, not the plugin's.
// Usage: node bench/plugin-rollback.js [--rounds 15]
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create } from 'tar';
import { adminToken, arg, startSvc } from './lib.js';

const ROUNDS = arg('rounds', 15);
const MANAGE = '/apis/api.console.svc.run/v1alpha1/plugins';
const ROUTE = '/apis/api.flip.svc.run/v1/version';

const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-rollback-'));
let built = 0;

/** A .tgz of the flip plugin at `version`: it serves its version on ROUTE, or its start() throws. */
async function flip(version, fails) {
  const folder = path.join(work, 'src', `${version}${fails ? '-fails' : ''}`, 'flip');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'plugin.yaml'),
    `apiVersion: plugin.svc.run/v1alpha1\nkind: Plugin\nmetadata:\n  name: flip\nspec:\n  version: ${version}\n  requires: ">=0.1.0"\n  main: index.js\n`,
  );
  const start = fails
    ? "throw new Error('boom');"
    : `ctx.routes.add({ apiVersion: 'api.flip.svc.run/v1', method: 'GET', path: '/version', handler: () => ({ version: '${version}' }) });`;
  writeFileSync(path.join(folder, 'index.js'), `export default { start(ctx) { ${start} } };\n`);
  // Each version loads as new code (the host's code generation is paths, sizes and modification times).
  const time = 1_600_000_000 + ++built * 100;
  utimesSync(path.join(folder, 'index.js'), time, time);
  const chunks = [];
  for await (const chunk of create({ gzip: true, cwd: path.dirname(folder), portable: true }, ['flip']))
    chunks.push(chunk);
  return Buffer.concat(chunks);
}

function form(archive) {
  const body = new FormData();
  body.append('file', new Blob([archive]), 'flip.tgz');
  return body;
}

/** ms from the request to the route answering `expected`. */
async function timeUpgrade(url, auth, archive, expected) {
  const started = process.hrtime.bigint();
  const response = await fetch(`${url}${MANAGE}/flip/upgrade`, { method: 'POST', headers: auth, body: form(archive) });
  const plugin = await response.json();
  if (response.status !== 200) throw new Error(`upgrade: ${response.status} ${JSON.stringify(plugin)}`);
  for (;;) {
    const answer = await fetch(`${url}${ROUTE}`, { headers: auth });
    if (answer.status === 200 && (await answer.json()).version === expected) break;
  }
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

let server;
try {
  const plugins = path.join(work, 'plugins');
  mkdirSync(plugins);
  server = await startSvc(path.join(work, 'data'), plugins);
  const auth = await adminToken(server.url);
  const installed = await fetch(`${server.url}${MANAGE}/install`, {
    method: 'POST',
    headers: auth,
    body: form(await flip('1.0.0', false)),
  });
  if (installed.status !== 201) throw new Error(`install: ${installed.status} ${await installed.text()}`);
  const enabled = await fetch(`${server.url}${MANAGE}/flip/plugin-state`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ enable: true }),
  });
  if ((await enabled.json()).status?.phase !== 'STARTED') throw new Error('flip 1.0.0 did not start');

  const failing = await flip('9.0.0', true);
  const upgrades = [];
  const rollbacks = [];
  // Interleaved, so both see the same machine: a good upgrade to 1.0.i, then a failing one rolled back to 1.0.i.
  for (let i = 1; i <= ROUNDS; i++) {
    const version = `1.0.${i}`;
    upgrades.push(await timeUpgrade(server.url, auth, await flip(version, false), version));
    rollbacks.push(await timeUpgrade(server.url, auth, failing, version));
  }
  const upgrade = median(upgrades);
  const rollback = median(rollbacks);
  console.log(`plugin rollback benchmark: ${ROUNDS} rounds, medians, request to the route answering\n`);
  console.log(`upgrade that starts (baseline)            ${upgrade.toFixed(1).padStart(7)} ms`);
  console.log(
    `upgrade that fails, rolled back           ${rollback.toFixed(1).padStart(7)} ms  (${(rollback / upgrade).toFixed(2)}x baseline)`,
  );
} finally {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}
