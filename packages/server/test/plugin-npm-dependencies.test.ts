/**
 * Issue 31 item 1: a plugin's npm dependencies ship with it. A scaffolded plugin bundles them into dist/index.js
 * (esbuild); a hand-written folder ships them under node_modules/ (what package.json's dependencies lists and the
 * code imports, with their own dependencies, never devDependencies); either archive installs and its route, which
 * calls `ms('2h')`, answers over HTTP on both stores. An import nothing would provide is refused at pack time.
 *
 * `ms` here is a tiny stand-in written by the test (the same CommonJS shape as the real one, with one dependency of
 * its own), so the test needs no registry.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { list } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, REPO, startTestServer, type TestServer } from './harness.js';
import { svc } from './offline-cli.js';
import { multipart } from './plugin-archives.js';
import { childEnv } from './serve-process.js';

const SLOW = 180_000;
const CONSOLE = '/apis/api.console.svc.run/v1alpha1/plugins';
const MANIFEST = (name: string, main: string) =>
  `apiVersion: plugin.svc.run/v1alpha1\nkind: Plugin\nmetadata:\n  name: ${name}\nspec:\n  version: 1.0.0\n  requires: ">=0.0.1"\n  main: ${main}\n`;

/** `ms` and the package it depends on, as npm installs them: hoisted side by side under node_modules/. */
const MS_PACKAGES: Record<string, string> = {
  'node_modules/ms/package.json': JSON.stringify({
    name: 'ms',
    version: '2.1.3',
    main: 'index.js',
    dependencies: { 'ms-units': '1.0.0' },
  }),
  'node_modules/ms/index.js':
    "const units = require('ms-units');\nmodule.exports = (text) => {\n  const [, n, unit] = /^(\\d+)([smhd])$/.exec(text);\n  return Number(n) * units[unit];\n};\n",
  'node_modules/ms/index.d.ts': 'declare function ms(text: string): number;\nexport = ms;\n',
  'node_modules/ms-units/package.json': JSON.stringify({ name: 'ms-units', version: '1.0.0', main: 'index.js' }),
  'node_modules/ms-units/index.js': 'module.exports = { s: 1000, m: 60000, h: 3600000, d: 86400000 };\n',
};

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
  }
}

async function entriesOf(archive: string): Promise<string[]> {
  const entries: string[] = [];
  await list({ file: archive, onReadEntry: (entry) => void entries.push(entry.path) });
  return entries;
}

function runNode(script: string, cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { cwd, env: childEnv() }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

describe('plugins with npm dependencies', () => {
  let tmp: string;
  let handWrittenArchive: string;
  let bundledArchive: string;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'svc-plugin-deps-'));
  });
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  it(
    'packs a hand-written folder with the packages its code imports, without devDependencies',
    async () => {
      const folder = path.join(tmp, 'handmade');
      await writeTree(folder, {
        'plugin.yaml': MANIFEST('handmade', 'index.js'),
        'package.json': JSON.stringify({
          name: 'handmade',
          type: 'module',
          dependencies: { ms: '^2.1.3' },
          devDependencies: { 'dev-only': '1.0.0' },
        }),
        'index.js': `import { definePlugin } from '@svc/plugin-api';
import { ttlRoute } from './lib/ttl.js';

export default definePlugin({
  async start(ctx) {
    ctx.routes.add(ttlRoute);
  },
});
`,
        'lib/ttl.js': `import ms from 'ms';

export const ttlRoute = {
  apiVersion: 'console.api.handmade.svc.run/v1alpha1',
  method: 'GET',
  path: '/ttl',
  handler: async () => ({ ttl: ms('2h') }),
};
`,
        ...MS_PACKAGES,
        'node_modules/dev-only/package.json': JSON.stringify({ name: 'dev-only', version: '1.0.0' }),
        'node_modules/dev-only/index.js': '',
        'node_modules/.package-lock.json': '{}',
      });
      const out = path.join(tmp, 'out-handmade');
      const packed = await svc(['plugin', 'pack', folder, '--out', out]);
      expect(packed.code, packed.stderr).toBe(0);
      handWrittenArchive = path.join(out, 'handmade-1.0.0.tgz');
      expect(await entriesOf(handWrittenArchive)).toEqual([
        'handmade/',
        'handmade/index.js',
        'handmade/lib/',
        'handmade/lib/ttl.js',
        'handmade/node_modules/',
        'handmade/node_modules/ms/',
        'handmade/node_modules/ms-units/',
        'handmade/node_modules/ms-units/index.js',
        'handmade/node_modules/ms-units/package.json',
        'handmade/node_modules/ms/index.d.ts',
        'handmade/node_modules/ms/index.js',
        'handmade/node_modules/ms/package.json',
        'handmade/package.json',
        'handmade/plugin.yaml',
      ]);
    },
    SLOW,
  );

  it(
    'bundles a scaffolded plugin: the archive holds no node_modules, its entry imports only what svc provides',
    async () => {
      const created = await svc(['plugin', 'create', 'withms', '--dir', tmp]);
      expect(created.code, created.stderr).toBe(0);
      const folder = path.join(tmp, 'withms');
      // No network in tests: esbuild from the repository; ms, written here, as `npm install ms` would place it.
      await writeTree(folder, MS_PACKAGES);
      await symlink(path.join(REPO, 'node_modules/esbuild'), path.join(folder, 'node_modules/esbuild'), 'dir');
      const pkg = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8'));
      pkg.dependencies.ms = '^2.1.3';
      await writeFile(path.join(folder, 'package.json'), JSON.stringify(pkg, null, 2));
      await writeFile(
        path.join(folder, 'src/ttl.ts'),
        `import type { CustomRoute } from '@svc/plugin-api';
import ms from 'ms';

export const ttlRoute: CustomRoute = {
  apiVersion: 'console.api.withms.svc.run/v1alpha1',
  method: 'GET',
  path: '/ttl',
  handler: async () => ({ ttl: ms('2h') }),
};
`,
      );
      const index = await readFile(path.join(folder, 'src/index.ts'), 'utf8');
      await writeFile(
        path.join(folder, 'src/index.ts'),
        index
          .replace(
            "import { noteModel } from './note.js';",
            "import { noteModel } from './note.js';\nimport { ttlRoute } from './ttl.js';",
          )
          .replace(
            'ctx.routes.add(statsRoute(ctx.client));',
            'ctx.routes.add(statsRoute(ctx.client));\n    ctx.routes.add(ttlRoute);',
          ),
      );

      // The scaffold's build:server script, which `npm run build` runs after tsc's type check.
      expect(pkg.scripts['build:server']).toBe('node bundle.mjs');
      const bundled = await runNode('bundle.mjs', folder);
      expect(bundled.code, bundled.output).toBe(0);
      expect(await readdir(path.join(folder, 'dist'))).toEqual(['index.js', 'index.js.map']);
      const entry = await readFile(path.join(folder, 'dist/index.js'), 'utf8');
      const imported = [...entry.matchAll(/^import .*? from ["']([^"']+)["']/gm)].map((m) => m[1]);
      expect([...new Set(imported)].sort()).toEqual(['@svc/plugin-api', 'node:module']);

      const out = path.join(tmp, 'out-withms');
      const packed = await svc(['plugin', 'pack', folder, '--out', out]);
      expect(packed.code, packed.stderr).toBe(0);
      bundledArchive = path.join(out, 'withms-0.1.0.tgz');
      const entries = await entriesOf(bundledArchive);
      expect(entries).toContain('withms/dist/index.js');
      expect(entries.filter((e) => e.includes('node_modules'))).toEqual([]);
    },
    SLOW,
  );

  it(
    'refuses to pack code importing a package that is not installed, naming it, and writes nothing',
    async () => {
      const folder = path.join(tmp, 'missing');
      await writeTree(folder, {
        'plugin.yaml': MANIFEST('missing', 'dist/index.js'),
        'package.json': JSON.stringify({ name: 'missing', type: 'module', dependencies: { ms: '^2.1.3' } }),
        'dist/index.js': "import ms from 'ms';\nimport './util.js';\nexport default { start() {} };\n",
        'dist/util.js':
          "import { readFile } from 'node:fs/promises';\nimport chalk from 'chalk';\nexport { readFile, chalk };\n",
      });
      const out = path.join(tmp, 'out-missing');
      const packed = await svc(['plugin', 'pack', folder, '--out', out]);
      expect(packed.code).toBe(1);
      expect(packed.stderr).toContain(
        'dist/index.js imports "ms", which is neither bundled, nor in node_modules, nor provided by svc (it is in "dependencies": run npm install)',
      );
      expect(packed.stderr).toContain(
        'dist/util.js imports "chalk", which is neither bundled, nor in node_modules, nor provided by svc',
      );
      await expect(stat(out)).rejects.toThrow();
    },
    SLOW,
  );

  describe.each(BACKENDS)('installed on a running server (%s)', (backend) => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer({ backend, pluginsDirs: [] });
    }, SLOW);
    afterAll(() => t?.close());

    it.each([
      ['the hand-written folder', 'handmade', () => handWrittenArchive],
      ['the bundled scaffold', 'withms', () => bundledArchive],
    ])(
      '%s starts, and its route answers ms("2h")',
      async (_, name, archive) => {
        const { body, headers } = multipart(await readFile(archive()));
        const installed = await t.request('POST', `${CONSOLE}/install`, body, headers);
        expect(installed.status, installed.text).toBe(201);
        const started = await t.request('PUT', `${CONSOLE}/${name}/plugin-state`, { enable: true });
        expect(started.body.status.phase, started.text).toBe('STARTED');
        const ttl = await t.request('GET', `/apis/console.api.${name}.svc.run/v1alpha1/ttl`);
        expect(ttl.status, ttl.text).toBe(200);
        expect(ttl.body).toEqual({ ttl: 7200000 });
      },
      SLOW,
    );
  });
});
