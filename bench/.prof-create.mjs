import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminToken, BENCH_ADMIN_PASSWORD, seedPersons, startProcess, wrkCreates, wrkGets } from './lib.js';
const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-prof-'));
const svc = await startProcess(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/prof', 'packages/server/dist/cli.js', 'serve'], {
  SVC_PORT: '0', SVC_HTTPS_PORT: 'off', SVC_DATA_DIR: dataDir, SVC_PLUGINS_DIR: 'plugins', SVC_LOG_LEVEL: 'warn',
  SVC_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD, SVC_CONTROLLERS: 'off',
});
const auth = await adminToken(svc.url);
await seedPersons(svc.url, 2000, auth);
const mode = process.argv[2] ?? 'create';
if (mode === 'get') console.log(wrkGets(`${svc.url}/apis/people.svc.run/v1alpha1/persons/p-5`, 10, auth).rps);
else console.log(wrkCreates(svc.url, 10, 'bench/create.lua', auth));
svc.child.kill('SIGINT');
await new Promise((r) => svc.child.on('exit', r));
