/**
 * Issue 15 item 5: the scaffold depends on svc's packages portably. `svc plugin create` packs the plugin API into the
 * new folder (vendor/…tgz) and depends on it by a relative path, so the folder can be moved (or committed, or copied
 * to another machine) and `npm install` + build still work, with no absolute path anywhere in package.json.
 * Issue 31 item 7: the same goes for the svc command its scripts run (vendor/svc-plugin-cli-…tgz): `npm run pack`
 * works with no svc on the PATH.
 * Issue 31 item 4: its tests start a real svc with the plugin through the harness (`@svc/plugin-testing`), which the
 * folder carries with the server it runs (vendor/svc-plugin-testing-…, svc-run-…, svc-client-…tgz), so `npm test`
 * passes outside the checkout with no svc installed.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { list } from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import { HOST_VERSION } from '../src/version.js';
import { REPO } from './harness.js';
import { svc } from './offline-cli.js';
import { childEnv } from './serve-process.js';

function npm(args: string[], cwd: string, path?: string): Promise<{ code: number; output: string }> {
  // The nested vitest and npm must not think they run inside this one (nor in the repository's workspace).
  const env = Object.fromEntries(Object.entries(childEnv()).filter(([key]) => !key.startsWith('npm_')));
  if (path !== undefined) env.PATH = path;
  return new Promise((resolve) => {
    execFile('npm', args, { cwd, env: { ...env, NO_COLOR: '1' }, timeout: 240_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

describe('a scaffolded plugin, moved away from where it was made', () => {
  let tmp: string;
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  it('installs, builds and tests with the plugin API packed in its own folder', async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'svc-portable-'));
    const made = path.join(tmp, 'made-here');
    const created = await svc(['plugin', 'create', 'portable', '--dir', made]);
    expect(created.code, created.stderr).toBe(0);
    const moved = path.join(tmp, 'somewhere', 'else');
    await mkdir(path.dirname(moved), { recursive: true });
    await rename(path.join(made, 'portable'), moved);

    const text = await readFile(path.join(moved, 'package.json'), 'utf8');
    expect(JSON.parse(text).dependencies).toEqual({ '@svc/plugin-api': 'file:vendor/svc-plugin-api-0.1.0.tgz' });
    expect(JSON.parse(text).devDependencies['@svc/plugin-cli']).toBe(`file:vendor/svc-plugin-cli-${HOST_VERSION}.tgz`);
    expect(JSON.parse(text).devDependencies['@svc/console-shared']).toBe(
      `file:vendor/svc-console-shared-${HOST_VERSION}.tgz`,
    );
    expect(JSON.parse(text).devDependencies['@svc/plugin-testing']).toBe('file:vendor/svc-plugin-testing-0.1.0.tgz');
    expect(JSON.parse(text).devDependencies['svc-run']).toBe(`file:vendor/svc-run-${HOST_VERSION}.tgz`);
    expect(JSON.parse(text).overrides).toEqual({
      '@svc/plugin-api': 'file:vendor/svc-plugin-api-0.1.0.tgz',
      '@svc/client': 'file:vendor/svc-client-0.1.0.tgz',
    });
    for (const absolute of [REPO, tmp, '"file:/']) expect(text).not.toContain(absolute);
    const entries: string[] = [];
    await list({
      file: path.join(moved, 'vendor/svc-plugin-api-0.1.0.tgz'),
      onReadEntry: (e) => void entries.push(e.path),
    });
    expect(entries).toContain('package/package.json');
    expect(entries).toContain('package/dist/index.d.ts');
    expect(entries.every((entry) => entry.startsWith('package/'))).toBe(true);
    // The server the harness runs: its built code, no `svc` command of its own (the plugin's is @svc/plugin-cli's).
    const server: string[] = [];
    await list({
      file: path.join(moved, `vendor/svc-run-${HOST_VERSION}.tgz`),
      onReadEntry: (e) => void server.push(e.path),
    });
    expect(server).toContain('package/dist/index.js');
    expect(server.filter((entry) => /^package\/(bin|src|test)\/|plugin-cli-package/.test(entry))).toEqual([]);
    // The archives `npm run pack` writes stay out of git; the vendored plugin API does not.
    expect(await readFile(path.join(moved, '.gitignore'), 'utf8')).toContain('\n/*.tgz\n');

    // TypeScript and vitest from npm's cache when it has them (the registry otherwise); the plugin API from vendor/.
    const installed = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund'], moved);
    expect(installed.code, installed.output).toBe(0);
    const pluginApi = JSON.parse(await readFile(path.join(moved, 'node_modules/@svc/plugin-api/package.json'), 'utf8'));
    expect(pluginApi.name).toBe('@svc/plugin-api');
    const built = await npm(['run', 'build'], moved);
    expect(built.code, built.output).toBe(0);
    // The console UI, built by Vite in the scaffolded folder: what the console shares stays an import.
    const entry = await readFile(path.join(moved, 'ui/dist/main.js'), 'utf8');
    expect(entry).toMatch(/from ["']@svc\/console-shared["']/);
    const chunk = (await readdir(path.join(moved, 'ui/dist'))).find((f) => /^NotesPage-.*\.js$/.test(f)) ?? '';
    expect(await readFile(path.join(moved, 'ui/dist', chunk), 'utf8')).toMatch(/from ["']vue["']/);
    // The UI is checked against the console's own shared types: a wrong call fails the type check, naming it.
    const page = path.join(moved, 'ui/src/NotesPage.vue');
    const good = await readFile(page, 'utf8');
    await writeFile(page, good.replace('newestFirst: () =>', 'newestFirst: 3, oldestFirst: () =>'));
    const refused = await npm(['run', 'typecheck'], moved);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/NotesPage\.vue\(\d+,\d+\): error TS2322: Type 'number' is not assignable/);
    await writeFile(page, good);
    // The reconciler's logic alone, and the plugin in a real svc started by the harness, asked over HTTP.
    const tested = await npm(['test'], moved);
    expect(tested.code, tested.output).toBe(0);
    expect(tested.output).toContain('src/plugin.test.ts (3 tests)');
    expect(tested.output).toMatch(/Tests\s+8 passed \(8\)/);

    // No svc on the PATH: only this Node.js (and npm, which runs on it) and the system's tools.
    const bin = path.join(tmp, 'bin');
    await mkdir(bin);
    await symlink(process.execPath, path.join(bin, 'node'));
    const bare = `${bin}:/usr/bin:/bin`;
    const which = await new Promise<number>((resolve) =>
      execFile('sh', ['-c', 'command -v svc'], { env: { PATH: bare } }, (error) => resolve(error ? 1 : 0)),
    );
    expect(which).toBe(1);
    const packed = await npm(['run', 'pack'], moved, bare);
    expect(packed.code, packed.output).toBe(0);
    expect(packed.output).toContain(`Packed portable 0.1.0 (`);
    const archived: string[] = [];
    await list({ file: path.join(moved, 'portable-0.1.0.tgz'), onReadEntry: (e) => void archived.push(e.path) });
    expect(archived).toContain('portable/dist/index.js');
    expect(archived.filter((entry) => entry.includes('node_modules'))).toEqual([]);
  }, 480_000);
});
