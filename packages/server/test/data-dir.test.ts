/**
 * The data directory: its owner's alone (0700, files 0600), made so and tightened at start; and the lock that keeps a
 * second server off the embedded database, held by the kernel so that a server's death frees it at once.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE } from './auth-harness.js';
import { capturingLogger, startTestServer, TEST_ADMIN } from './harness.js';
import { svc } from './offline-cli.js';
import { multipart, tgzOf } from './plugin-archives.js';
import { CLI, childEnv, spawnServe } from './serve-process.js';

const NOTES_PLUGIN = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-watch/notes');

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

/** The state of a process in /proc (R, S, Z for a zombie, …), or undefined once it is gone. */
async function processState(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '')[0];
  } catch {
    return undefined;
  }
}

describe('the data directory', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'svc-data-dir-'));
  });
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  it("is made its owner's alone: the folder 0700, the database, its lock, TLS files and plugin code 0600", async () => {
    const dataDir = path.join(tmp, 'made/data');
    const t = await startTestServer({ pluginsDirs: [], env: { SVC_DATA_DIR: dataDir, SVC_HTTPS_PORT: '0' } });
    try {
      await t.server.listen();
      const { body, headers } = multipart(await tgzOf(NOTES_PLUGIN));
      expect((await t.request('POST', `${CONSOLE}/plugins/install`, body, headers)).status).toBe(201);
      expect(await modeOf(dataDir)).toBe(0o700);
      for (const file of ['svc.db', 'svc.db-wal', 'svc.db-shm', 'svc.lock'])
        expect(await modeOf(path.join(dataDir, file)), file).toBe(0o600);
      expect(await modeOf(path.join(dataDir, 'tls'))).toBe(0o700);
      for (const file of ['ca.crt', 'ca.key', 'server.crt', 'server.key'])
        expect(await modeOf(path.join(dataDir, 'tls', file)), file).toBe(0o600);
      for (const folder of ['plugins', 'plugins/notes'])
        expect(await modeOf(path.join(dataDir, folder)), folder).toBe(0o700);
      expect(await modeOf(path.join(dataDir, 'plugins/notes/plugin.yaml'))).toBe(0o600);
    } finally {
      await t.close();
    }
  });

  it('made readable by others (an older svc, a copy), is tightened at start with a warning in the log', async () => {
    const dataDir = path.join(tmp, 'wide');
    const first = await startTestServer({ pluginsDirs: [], env: { SVC_DATA_DIR: dataDir } });
    await first.close();
    await mkdir(path.join(dataDir, 'plugins/old/lib'), { recursive: true });
    await writeFile(path.join(dataDir, 'plugins/old/lib/run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    for (const [entry, mode] of [
      ['', 0o755],
      ['svc.db', 0o644],
      ['svc.lock', 0o666],
      ['plugins', 0o755],
      ['plugins/old', 0o775],
      ['plugins/old/lib', 0o750],
      ['plugins/old/lib/run.sh', 0o755],
    ] as const)
      await chmod(path.join(dataDir, entry), mode);
    const { logger, lines } = capturingLogger('warn');
    const again = await startTestServer({ pluginsDirs: [], logger, env: { SVC_DATA_DIR: dataDir } });
    try {
      expect(await modeOf(dataDir)).toBe(0o700);
      for (const file of ['svc.db', 'svc.db-wal', 'svc.lock'])
        expect(await modeOf(path.join(dataDir, file))).toBe(0o600);
      expect(await modeOf(path.join(dataDir, 'plugins/old'))).toBe(0o700);
      // An executable stays executable, for its owner only.
      expect(await modeOf(path.join(dataDir, 'plugins/old/lib/run.sh'))).toBe(0o700);
      const warning = lines().find((line) => String(line.msg).includes('was readable by other users'));
      expect(warning?.msg).toBe(
        `the data directory ${dataDir} was readable by other users: removed their access to 7 files and folders ` +
          '(the database holds password hashes and token digests)',
      );
      expect(warning?.count).toBe(7);
    } finally {
      await again.close();
    }
  });
});

describe('the server lock of the embedded database', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'svc-lock-'));
  });
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  it('refuses a second server in the same process, naming the data directory, and serves once the first stops', async () => {
    const dataDir = path.join(tmp, 'in-process');
    const first = await startTestServer({ pluginsDirs: [], env: { SVC_DATA_DIR: dataDir } });
    try {
      await expect(startTestServer({ pluginsDirs: [], env: { SVC_DATA_DIR: dataDir } })).rejects.toThrow(
        `another svc server already serves the database in ${dataDir} (it holds the lock ${path.join(dataDir, 'svc.lock')};`,
      );
    } finally {
      await first.close();
    }
    const next = await startTestServer({ pluginsDirs: [], env: { SVC_DATA_DIR: dataDir } });
    expect((await next.request('GET', '/api/v1alpha1/roles/super-role')).status).toBe(200);
    await next.close();
  });

  it('is taken by svc import too: refused while a server runs there, exit 1', async () => {
    const dataDir = path.join(tmp, 'import');
    const t = await startTestServer({ pluginsDirs: [], env: { SVC_DATA_DIR: dataDir } });
    try {
      const backup = path.join(tmp, 'import.yaml');
      expect((await svc(['export', '--data-dir', dataDir, '-o', backup])).code).toBe(0);
      const imported = await svc(['import', '--data-dir', dataDir, '-f', backup]);
      expect(imported.code).toBe(1);
      expect(imported.stderr).toContain(`svc import: another svc server already serves the database in ${dataDir}`);
    } finally {
      await t.close();
    }
  });

  it('is not held by a lock file of the old format naming a live process, nor by junk at its path', async () => {
    const dataDir = path.join(tmp, 'old-format');
    await mkdir(dataDir, { recursive: true });
    // This test's own process: alive, and no svc server of that data directory.
    await writeFile(path.join(dataDir, 'svc.db.server'), `${process.pid}\n`);
    await writeFile(path.join(dataDir, 'svc.lock'), `${process.pid}\n`);
    const t = await startTestServer({ pluginsDirs: [], env: { SVC_DATA_DIR: dataDir } });
    try {
      expect((await t.request('GET', '/api/v1alpha1/roles/super-role')).status).toBe(200);
      await expect(startTestServer({ pluginsDirs: [], env: { SVC_DATA_DIR: dataDir } })).rejects.toThrow(
        'another svc server already serves the database',
      );
    } finally {
      await t.close();
    }
  });

  it('is free the moment a killed server dies, even while it stays an unreaped zombie', async () => {
    const dataDir = path.join(tmp, 'zombie');
    const env = childEnv({
      SVC_DATA_DIR: dataDir,
      SVC_PORT: '0',
      SVC_HTTPS_PORT: 'off',
      SVC_ADMIN_PASSWORD: TEST_ADMIN.password,
    });
    // The server's parent is `sleep`, which never waits for its children: killed, the server stays a zombie, as under
    // an init that does not reap (a container's). A pid file checked with kill(pid, 0) still saw it alive.
    const parent = spawn('sh', ['-c', '"$0" "$1" serve & echo "pid $!"; exec sleep 600', process.execPath, CLI], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      parent.stdout.on('data', (chunk) => (output += chunk));
      parent.stderr.on('data', (chunk) => (output += chunk));
      const serverPid = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`svc serve did not start:\n${output}`)), 60_000);
        parent.stdout.on('data', () => {
          const pid = /^pid (\d+)$/m.exec(output)?.[1];
          if (pid && output.includes('svc listening on')) {
            clearTimeout(timer);
            resolve(Number(pid));
          }
        });
      });
      process.kill(serverPid, 'SIGKILL');
      for (let i = 0; i < 200 && (await processState(serverPid)) !== 'Z'; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(await processState(serverPid)).toBe('Z');

      const next = await spawnServe({ SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: TEST_ADMIN.password });
      expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
      await next.kill();
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
