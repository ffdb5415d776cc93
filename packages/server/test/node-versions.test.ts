/**
 * svc runs on Node.js 22 or newer (better-sqlite3 13 crashes older ones). A machine whose own Node.js is older
 * (this platform's machines ship 20) still runs `svc`: the command hands itself over to the Node.js 24 that
 * `npm install` brought. These tests start it with such a Node.js, and skip where the machine has none.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from './harness.js';
import { SVC_BIN } from './offline-cli.js';
import { spawnServe } from './serve-process.js';

const OLD_NODE = '/usr/bin/node';

function majorOf(node: string): number | undefined {
  try {
    return Number(execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0]);
  } catch {
    return undefined;
  }
}

const oldMajor = majorOf(OLD_NODE);
const hasOldNode = oldMajor !== undefined && oldMajor < 22;
if (!hasOldNode) console.log(`node-versions tests skipped: ${OLD_NODE} is missing or is Node.js 22 or newer`);

describe.skipIf(!hasOldNode)('svc started by a Node.js older than 22', () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it('serves on Node.js 22 or newer, stops gracefully on SIGTERM, and exports the database it wrote', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-old-node-'));
    folders.push(dataDir);
    const served = await spawnServe({ SVC_DATA_DIR: dataDir, SVC_LOG_FORMAT: 'json' }, 60_000, [OLD_NODE, SVC_BIN]);
    try {
      // On the Node.js npm install brought, with the flags npm start gives it (bin/node-flags.js).
      const version = /"msg":"svc [^"]+ on Node\.js v(\d+)\.\d+\.\d+ \(([^)]*)\)"/.exec(served.stdout());
      expect(Number(version?.[1])).toBeGreaterThanOrEqual(22);
      expect(version?.[2]).toBe('--max-semi-space-size=16');
      expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => served.child.on('exit', (code) => resolve(code)));
      served.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(served.stdout()).toContain('SIGTERM received, shutting down');
    } finally {
      await served.kill();
    }
    // Reading the database it wrote loads better-sqlite3 13, which crashes Node.js 20.
    const exported = spawnSync(OLD_NODE, [SVC_BIN, 'export', '--data-dir', dataDir, '-o', '-'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(exported.stderr).toMatch(/^svc export: \d+ objects of \d+ resources/);
    expect(exported.status).toBe(0);
    expect(exported.stdout).toMatch(/^kind: Role\n/m);
  });
});

describe('npm start', () => {
  it('runs svc with the Node.js flags bin/node-flags.js names, as the hand-over and the benches do', async () => {
    const manifest = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8'));
    expect(manifest.scripts.start).toBe(
      'node --max-semi-space-size=16 packages/server/bin/svc.js serve --default-plugins',
    );
    // @ts-expect-error: a plain ESM file of the bin, without types.
    const { SERVE_NODE_FLAGS } = await import('../bin/node-flags.js');
    expect(SERVE_NODE_FLAGS).toEqual(['--max-semi-space-size=16']);
  });
});
