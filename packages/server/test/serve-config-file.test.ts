/**
 * `svc serve --config svc.yaml` over the built binary: a file's setting takes effect, a flag beats the variable beats
 * the file, a mistake in the file exits 2 naming it, and `--help` lists every setting. `npm test` builds first.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/settings/table.js';
import { TEST_ADMIN } from './harness.js';
import { CLI, spawnServe } from './serve-process.js';

/** Runs `svc serve` with these arguments and variables; bounded, so one that would start a server fails the test. */
function serve(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'serve', ...args],
      { timeout: 10_000, env: { ...process.env, SVC_PORT: '0', SVC_HTTPS_PORT: 'off', ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** A port nobody listens on now (the OS's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let dir: string;
let file: string;
let filePort: number;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-config-file-'));
  file = path.join(dir, 'svc.yaml');
  filePort = await freePort();
  // The data directory is relative: it starts at the file's folder, wherever svc is started from.
  await writeFile(file, `port: ${filePort}\ndataDir: data\nlogFormat: json\naccessLog: false\n`);
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** Starts `svc serve` with the arguments and variables, and answers the port it listens on. */
async function listeningPort(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const served = await spawnServe(
    { SVC_PORT: undefined, SVC_ADMIN_PASSWORD: TEST_ADMIN.password, ...env },
    60_000,
    undefined,
    {
      args,
    },
  );
  await served.kill();
  return Number(new URL(served.url).port);
}

describe('svc serve --config', () => {
  it("takes the file's settings, its relative paths from its folder", async () => {
    expect(await listeningPort(['--config', file], {})).toBe(filePort);
    expect(existsSync(path.join(dir, 'data'))).toBe(true);
  });

  it('takes a flag over the variable, and the variable over the file', async () => {
    const [variablePort, flagPort] = [await freePort(), await freePort()];
    expect(await listeningPort([], { SVC_CONFIG: file, SVC_PORT: String(variablePort) })).toBe(variablePort);
    expect(
      await listeningPort(['--config', file, '--port', String(flagPort)], { SVC_PORT: String(variablePort) }),
    ).toBe(flagPort);
  });

  it('exits 2 on an unknown key, naming it and the closest key', async () => {
    const typo = path.join(dir, 'typo.yaml');
    await writeFile(typo, 'prot: 9000\n');
    for (const run of [await serve(['--config', typo]), await serve([], { SVC_CONFIG: typo })]) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`svc: ${typo}: unknown key "prot"; did you mean "port"?`);
      expect(run.stdout).not.toContain('listening');
    }
  });

  it('exits 2 on a bad value, naming the file and the key', async () => {
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, 'port: 8090\nsqliteSync: sometimes\n');
    const run = await serve(['--config', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`svc: ${bad}: sqliteSync must be normal or full, got "sometimes"`);
    const missing = await serve(['--config', path.join(dir, 'missing.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('svc: cannot read the config file: ENOENT');
  });

  it('exits 2 on a bad variable too, naming it', async () => {
    const run = await serve([], { SVC_WATCH_HISTORY: 'lots' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('svc: SVC_WATCH_HISTORY must be a whole number of events, at least 1, got "lots"');
  });

  it('--help lists every setting with its flag, variable and default', async () => {
    const help = await serve(['--help']);
    expect(help.code).toBe(0);
    for (const s of SETTINGS) {
      const shown = s.default === undefined ? s.env : `${s.env}=${s.default}`;
      expect(help.stdout).toMatch(
        new RegExp(`^ {2}${s.flag ? `${s.flag} \\S+` : ''} +${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `, 'm'),
      );
    }
  });
});
