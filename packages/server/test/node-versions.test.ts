/**
 * svc runs on Node.js 22 or newer (better-sqlite3 13 crashes older ones). A machine whose own Node.js is older
 * (this platform's machines ship 20) still runs `svc`: the command hands itself over to the Node.js 24 that
 * `npm install` brought. These tests start it with such a Node.js, and skip where the machine has none.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SVC_BIN } from './offline-cli.js';
import { childEnv, processEnded, spawnServe } from './serve-process.js';

const OLD_NODE = '/usr/bin/node';

function majorOf(node: string): number | undefined {
  try {
    return Number(execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0]);
  } catch {
    return undefined;
  }
}

/** A fresh data directory, removed when the test ends. */
async function dataDir(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'svc-node-versions-'));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** The server's first log line (JSON): its version, Node.js, Node.js flags and pid. */
function startLine(stdout: string): { pid: number; msg: string } {
  return JSON.parse(stdout.split('\n').find((line) => line.includes('"msg":"svc '))!);
}

const oldMajor = majorOf(OLD_NODE);
const hasOldNode = oldMajor !== undefined && oldMajor < 22;
if (!hasOldNode) console.log(`node-versions tests skipped: ${OLD_NODE} is missing or is Node.js 22 or newer`);

describe.skipIf(!hasOldNode)('svc started by a Node.js older than 22', () => {
  it('serves on Node.js 22 or newer, stops gracefully on SIGTERM, and exports the database it wrote', async () => {
    const data = await dataDir();
    const served = await spawnServe({ SVC_DATA_DIR: data, SVC_LOG_FORMAT: 'json' }, 60_000, [OLD_NODE, SVC_BIN]);
    try {
      // On the Node.js npm install brought, with the flags `svc serve` gives itself (bin/node-flags.js).
      const version = /^svc \S+ on Node\.js v(\d+)\.\d+\.\d+ \(([^)]*)\)$/.exec(startLine(served.stdout()).msg);
      expect(Number(version?.[1])).toBeGreaterThanOrEqual(22);
      expect(version?.[2]).toBe('--max-semi-space-size=16');
      expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => served.child.on('exit', (code) => resolve(code)));
      served.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(served.stdout()).toContain('SIGTERM received, shutting down');
    } finally {
      // SIGKILL would end only the Node.js 20 process that handed over, and leave the server behind.
      const { child } = served;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      }
      await served.kill();
    }
    // Reading the database it wrote loads better-sqlite3 13, which crashes Node.js 20.
    const exported = spawnSync(OLD_NODE, [SVC_BIN, 'export', '--data-dir', data, '-o', '-'], {
      encoding: 'utf8',
      env: childEnv(),
      timeout: 60_000,
    });
    expect(exported.stderr).toMatch(/^svc export: \d+ objects of \d+ resources/);
    expect(exported.status).toBe(0);
    expect(exported.stdout).toMatch(/^kind: Role\n/m);
  });
});

describe.skipIf(!hasOldNode)(
  'svc handed over by a Node.js older than 22: the server dies with the started process',
  () => {
    const serveOld = (data: string) =>
      spawnServe({ SVC_DATA_DIR: data, SVC_LOG_FORMAT: 'json' }, 60_000, [OLD_NODE, SVC_BIN]);

    it('kill -9 of the started pid ends the server too, and a new server starts on the same data at once', async () => {
      const data = await dataDir();
      const started = await serveOld(data);
      const server = startLine(started.stdout()).pid;
      expect(server).not.toBe(started.child.pid);
      try {
        await started.kill();
        expect(await processEnded(server)).toBe('ended');
        expect(started.output()).toContain('svc: the process that started this one is gone; stopping at once');
      } finally {
        if ((await processEnded(server)) !== 'ended') process.kill(server, 'SIGKILL');
      }
      const next = await serveOld(data);
      try {
        expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
      } finally {
        const nextServer = startLine(next.stdout()).pid;
        await next.kill();
        await processEnded(nextServer);
      }
    });

    it('passes on a signal it did not use to (SIGUSR2): the server dies of it, and so does the started process', async () => {
      const started = await serveOld(await dataDir());
      const server = startLine(started.stdout()).pid;
      try {
        const exited = new Promise<NodeJS.Signals | null>((resolve) =>
          started.child.on('exit', (_code, signal) => resolve(signal)),
        );
        started.child.kill('SIGUSR2');
        expect(await exited).toBe('SIGUSR2');
        expect(await processEnded(server)).toBe('ended');
      } finally {
        if ((await processEnded(server)) !== 'ended') process.kill(server, 'SIGKILL');
        await started.kill();
      }
    });
  },
);

describe('svc serve on Node.js 22 or newer', () => {
  async function serveLog(env: Record<string, string | undefined>) {
    const served = await spawnServe({ SVC_DATA_DIR: await dataDir(), SVC_LOG_FORMAT: 'json', ...env }, 60_000, [
      process.execPath,
      SVC_BIN,
    ]);
    try {
      return { pid: served.child.pid, start: startLine(served.stdout()) };
    } finally {
      await served.kill();
    }
  }

  it('started without the serve flags, replaces itself with a process that has them, keeping its pid', async () => {
    const { pid, start } = await serveLog({ NODE_OPTIONS: undefined });
    expect(start.msg).toMatch(/^svc \S+ on Node\.js v\d+\.\d+\.\d+ \(--max-semi-space-size=16\)$/);
    expect(start.pid).toBe(pid);
  });

  it("leaves a semi-space size given in NODE_OPTIONS as the user's choice", async () => {
    const { pid, start } = await serveLog({ NODE_OPTIONS: '--max_semi_space_size=32' });
    expect(start.msg).toMatch(/^svc \S+ on Node\.js v\d+\.\d+\.\d+$/);
    expect(start.pid).toBe(pid);
  });
});
