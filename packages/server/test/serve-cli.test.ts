import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, settingsFromArgs } from '../src/config.js';
import { eventually } from './eventually.js';
import { REPO } from './harness.js';
import { CLI, childEnv, spawnServe } from './serve-process.js';

/** Runs the built `svc` command; a bounded run, so a command that would start a server fails the test instead. */
function svc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { timeout: 10_000, env: childEnv({ SVC_PORT: '0', SVC_HTTPS_PORT: 'off' }) },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe('the svc command line', () => {
  it('prints help for serve without starting anything', async () => {
    const help = await svc('serve', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: svc serve \[flags\]\n/);
    expect(help.stdout).toMatch(/^ {2}--host ADDRESS +SVC_HOST=127\.0\.0\.1 /m);
    expect(help.stdout).toMatch(/^ {2}--port N +SVC_PORT=8090 /m);
    expect(help.stdout).not.toContain('listening');
  });

  it('lists every command in svc --help, one aligned line each, token list included', async () => {
    const help = await svc('--help');
    expect(help.code).toBe(0);
    const lines = help.stdout.split('\n');
    expect(lines[0]).toBe('usage: svc <command> [arguments] [flags]');
    expect(lines).toContain('  token create          create a personal access token');
    expect(lines).toContain('  token list            list your tokens, by the names you gave them');
    expect(lines).toContain('  admin reset-password  set a lost password');
    expect(lines).toContain('  serve                 run the server (svc serve --help lists every setting)');
  });

  it('prints its version', async () => {
    const { version } = (await import(path.join(REPO, 'packages/server/package.json'), { with: { type: 'json' } }))
      .default as {
      version: string;
    };
    expect(await svc('--version')).toMatchObject({ code: 0, stdout: `svc ${version}\n` });
    expect(await svc('serve', '--version')).toMatchObject({ code: 0, stdout: `svc ${version}\n` });
  });

  it('refuses an unknown flag with the closest one, and a stray argument, as usage errors (exit 2)', async () => {
    const typo = await svc('serve', '--prot', '9000');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown flag "--prot"; did you mean "--port"?');
    const command = await svc('kubeconfg');
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "kubeconfg"; did you mean "kubeconfig"?');
    const stray = await svc('serve', 'now');
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('unexpected argument "now"');
  });

  it('takes SVC_SQLITE_SYNC normal (the default) or full, and refuses anything else naming both', () => {
    expect(loadConfig({}).sqliteSync).toBe('normal');
    expect(loadConfig({ SVC_SQLITE_SYNC: 'FULL' }).sqliteSync).toBe('full');
    expect(() => loadConfig({ SVC_SQLITE_SYNC: 'fast' })).toThrow('SVC_SQLITE_SYNC must be normal or full, got "fast"');
  });

  it('takes SVC_CONTROLLERS (default on) from the environment or --controllers', () => {
    expect(loadConfig({}).controllers).toBe(true);
    expect(loadConfig({ SVC_CONTROLLERS: 'off' }).controllers).toBe(false);
    expect(loadConfig(settingsFromArgs(['--controllers', 'off'], { SVC_CONTROLLERS: 'on' })).controllers).toBe(false);
    expect(() => loadConfig({ SVC_CONTROLLERS: 'maybe' })).toThrow(
      'SVC_CONTROLLERS must be true or false, got "maybe"',
    );
  });

  it.each([
    [{}, 10_000],
    [{ SVC_INDEX_SNAPSHOTS: 'on' }, 10_000],
    [{ SVC_INDEX_SNAPSHOTS: 'OFF' }, undefined],
    [{ SVC_INDEX_SNAPSHOTS: '250' }, 250],
    [settingsFromArgs(['--index-snapshots', 'off'], { SVC_INDEX_SNAPSHOTS: '5' }), undefined],
  ])('takes SVC_INDEX_SNAPSHOTS %o as a minimum of %s objects', (settings, minimum) => {
    expect(loadConfig(settings).indexSnapshotMinObjects).toBe(minimum);
  });

  it.each(['0', '-3', '1.5', 'sometimes'])('refuses SVC_INDEX_SNAPSHOTS=%s, naming what it takes', (value) => {
    expect(() => loadConfig({ SVC_INDEX_SNAPSHOTS: value })).toThrow(
      `SVC_INDEX_SNAPSHOTS must be on, off or the least number of objects a model needs to get one, got "${value}"`,
    );
  });

  it('reads flags over the environment, in both spellings', () => {
    const settings = settingsFromArgs(['--port', '9000', '--data-dir=/tmp/x', '--default-plugins'], { SVC_PORT: '1' });
    expect([settings.SVC_PORT, settings.SVC_DATA_DIR]).toEqual(['9000', '/tmp/x']);
    expect(() => settingsFromArgs(['--port'], {})).toThrow('--port needs a value');
    expect(() => settingsFromArgs(['--zzzzzzzzzz'], {})).toThrow(/^unknown flag "--zzzzzzzzzz"$/);
  });

  it('on an empty store without SVC_ADMIN_PASSWORD prints the setup link framed on standard error, never in the log', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-serve-'));
    const served = await spawnServe({ SVC_DATA_DIR: dataDir, SVC_LOG_FORMAT: 'json', SVC_ADMIN_PASSWORD: undefined });
    try {
      const stdout = served.stdout();
      const listening = /^svc listening on (\S+)$/m.exec(stdout)![1]!;
      // The link is printed once it listens; standard error may come a moment after the listening line.
      await eventually(() => served.stderr().includes('svc setup: '), 'the setup link on standard error');
      const block = /\n(=+)\nsvc setup: (\S+)\n(?:.*\n){2}\1\n/.exec(served.stderr());
      expect(block).not.toBeNull();
      const setup = block![2]!;
      expect(setup.startsWith(`${listening}/console/setup#token=`)).toBe(true);
      expect(setup).toMatch(/\/console\/setup#token=[\w-]{43}$/);
      // Standard output carries the log (JSON lines) and the listening line, never the token; nor is a password printed.
      const token = setup.split('#token=')[1]!;
      const lines = stdout.split('\n').filter((line) => line !== '');
      expect(lines.filter((l) => l.startsWith('{')).length).toBeGreaterThan(0);
      expect(lines.every((l) => l.startsWith('{') || l.startsWith('svc listening on '))).toBe(true);
      expect(stdout).not.toContain(token);
      expect(stdout).not.toContain('svc setup');
      expect(served.output()).not.toMatch(/password:/i);
    } finally {
      served.child.kill('SIGTERM');
      await new Promise((resolve) => served.child.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a second server on the same SQLite data directory, naming its lock, and serves after it stops', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-serve-twice-'));
    const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: 'x'.repeat(16) };
    const first = await spawnServe(env);
    try {
      const second = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [CLI, 'serve'],
          { env: childEnv({ SVC_PORT: '0', SVC_HTTPS_PORT: 'off', ...env }), timeout: 20_000 },
          (error, _stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }),
        ),
      );
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(
        `another svc server already serves the database in ${dataDir} (it holds the lock ${path.join(dataDir, 'svc.lock')};`,
      );
      expect(second.stderr).toContain('SVC_DATABASE_URL');
    } finally {
      await first.kill();
    }
    // Killed, it held its lock until it died: the next server takes it at once.
    const third = await spawnServe(env);
    await third.kill();
    expect(third.stdout()).toContain('svc listening on');
    await rm(dataDir, { recursive: true, force: true });
  });
});
