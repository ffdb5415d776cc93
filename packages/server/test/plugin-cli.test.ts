/**
 * The plugin author's command line, end to end: `svc plugin create` scaffolds a plugin, the repository's TypeScript
 * builds it, its own test passes, a real server runs it (model, reconciler, custom APIs, role templates), and
 * `svc plugin pack` archives it, deterministically. Runs the built CLI (dist/cli.js): `npm test` builds first.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import semver from 'semver';
import { list } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_VERSION } from '../src/version.js';
import { ADMIN, as, login, type Session, userWithRoles } from './auth-harness.js';
import { pluginReport, REPO, startTestServer, type TestServer } from './harness.js';
import { childEnv } from './serve-process.js';

const CLI = path.join(REPO, 'packages/server/dist/cli.js');
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');
const VITEST = path.join(REPO, 'node_modules/vitest/vitest.mjs');
const VITE = path.join(REPO, 'node_modules/vite/bin/vite.js');
const NOTES = '/apis/demo.svc.run/v1alpha1/notes';
const STATS = '/apis/console.api.demo.svc.run/v1alpha1/stats';
const DRAFTS = '/apis/console.api.demo.svc.run/v1alpha1/drafts';
const PUBLIC_NOTES = '/apis/api.demo.svc.run/v1alpha1/notes';
const SLOW = 180_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a Node script as its own process; the nested vitest must not think it runs inside this one (`childEnv`). */
function node(script: string, args: string[], cwd = REPO): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      { cwd, env: childEnv({ NO_COLOR: '1', FORCE_COLOR: '0' }), maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

const svc = (...args: string[]) => node(CLI, args);

async function entriesOf(archive: string): Promise<string[]> {
  const entries: string[] = [];
  await list({ file: archive, onReadEntry: (entry) => void entries.push(entry.path) });
  return entries;
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
  }
}

const manifestOf = (name: string, version: string, requires: string, main: string) =>
  `apiVersion: plugin.svc.run/v1alpha1\nkind: Plugin\nmetadata:\n  name: ${name}\nspec:\n  version: ${version}\n  requires: "${requires}"\n  main: ${main}\n`;

describe('svc plugin create and pack', () => {
  let tmp: string;
  let pluginsDir: string;
  let demo: string;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'svc-plugin-cli-'));
    pluginsDir = path.join(tmp, 'plugins');
    demo = path.join(pluginsDir, 'demo');
    const created = await svc('plugin', 'create', 'demo', '--dir', pluginsDir);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    expect(created.stdout).toContain(demo);
  }, SLOW);
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  it('scaffolds a manifest, a package, the sources, a test and role templates', async () => {
    for (const file of [
      'plugin.yaml',
      'package.json',
      'tsconfig.json',
      'bundle.mjs',
      '.gitignore',
      'README.md',
      'src/index.ts',
      'src/reconciler.ts',
      'src/reconciler.test.ts',
      'src/plugin.test.ts',
      'extensions/roles.yaml',
      'ui/vite.config.ts',
      'ui/src/index.ts',
      'ui/src/NotesPage.vue',
      'ui/src/env.d.ts',
      `vendor/svc-console-shared-${HOST_VERSION}.tgz`,
      // The test harness, the server it starts and the client (plugin-scaffold-portable.test.ts installs them).
      'vendor/svc-plugin-testing-0.1.0.tgz',
      `vendor/svc-run-${HOST_VERSION}.tgz`,
      'vendor/svc-client-0.1.0.tgz',
    ]) {
      expect((await stat(path.join(demo, file))).isFile(), file).toBe(true);
    }
    const manifest = await readFile(path.join(demo, 'plugin.yaml'), 'utf8');
    const host = semver.parse(HOST_VERSION)!;
    expect(manifest).toContain('apiVersion: plugin.svc.run/v1alpha1');
    expect(manifest).toMatch(/^ {2}name: demo$/m);
    expect(manifest).toMatch(/^ {2}version: 0\.1\.0$/m);
    expect(manifest).toContain(`requires: ">=${host.major}.${host.minor}.0"`);
    expect(manifest).toMatch(/^ {2}main: dist\/index\.js$/m);
    expect(manifest).toMatch(/^ {2}ui: ui\/dist\/main\.js$/m);

    const pkg = JSON.parse(await readFile(path.join(demo, 'package.json'), 'utf8'));
    const root = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      type: 'module',
      private: true,
      scripts: {
        build: 'npm run typecheck && node bundle.mjs && vite build ui',
        typecheck: 'tsc --noEmit -p . && vue-tsc --noEmit -p ui',
        'build:server': 'node bundle.mjs',
        dev: 'svc plugin dev',
        pretest: 'node bundle.mjs',
        test: 'vitest run',
        pack: 'svc plugin pack',
      },
      // The plugin API the host runs with, packed into the plugin's folder (plugin-scaffold-portable.test.ts).
      dependencies: { '@svc/plugin-api': 'file:vendor/svc-plugin-api-0.1.0.tgz' },
      devDependencies: {
        // The svc of `npm run pack` and `npm run dev`, packed into the folder (plugin-scaffold-portable.test.ts).
        '@svc/plugin-cli': `file:vendor/svc-plugin-cli-${HOST_VERSION}.tgz`,
        // The types of the console's shared modules, checked against by vue-tsc (plugin-scaffold-portable.test.ts).
        '@svc/console-shared': `file:vendor/svc-console-shared-${HOST_VERSION}.tgz`,
        'vue-tsc': expect.any(String),
        'vue-i18n': expect.any(String),
        esbuild: root.devDependencies.esbuild,
        typescript: root.devDependencies.typescript,
        vitest: root.devDependencies.vitest,
        vite: expect.any(String),
        '@vitejs/plugin-vue': expect.any(String),
        vue: expect.any(String),
      },
      files: ['dist', 'extensions', 'plugin.yaml', 'ui/dist'],
    });

    const roles = await readFile(path.join(demo, 'extensions/roles.yaml'), 'utf8');
    for (const expected of [
      'name: demo-role-view-notes',
      'name: demo-role-manage-notes',
      'name: demo-role-view-public',
      `rbac.authorization.svc.run/dependencies: '["demo-role-view-notes"]'`,
      `rbac.authorization.svc.run/ui-permissions: '["plugin:demo:view"]'`,
      `rbac.authorization.svc.run/ui-permissions: '["plugin:demo:manage"]'`,
      'rbac.authorization.svc.run/aggregate-to-anonymous: "true"',
      'resources: ["demo/notes"]',
    ]) {
      expect(roles).toContain(expected);
    }
  });

  it(
    'type-checks with the repository TypeScript, bundles with esbuild, and its own test passes',
    async () => {
      // No network in tests: the repository's node_modules holds @svc/plugin-api, typescript, esbuild and vitest.
      await symlink(path.join(REPO, 'node_modules'), path.join(demo, 'node_modules'), 'dir');
      const checked = await node(TSC, ['--noEmit', '-p', demo]);
      expect(checked, checked.stdout + checked.stderr).toMatchObject({ code: 0 });
      await expect(stat(path.join(demo, 'dist'))).rejects.toThrow();
      // The server side in one file: the plugin's own modules inside, the plugin API left for the host to provide.
      const bundled = await node('bundle.mjs', [], demo);
      expect(bundled, bundled.stdout + bundled.stderr).toMatchObject({ code: 0 });
      expect((await readdir(path.join(demo, 'dist'))).sort()).toEqual(['index.js', 'index.js.map']);
      const server = await readFile(path.join(demo, 'dist/index.js'), 'utf8');
      expect(server).toMatch(/from ["']@svc\/plugin-api["']/);
      expect(server).not.toMatch(/from ["']\.\//);
      // The UI: an ES module entry that imports what the console shares instead of bundling it, and loads its page
      // (a chunk beside it) only when the page is opened.
      const ui = await node(VITE, ['build', 'ui'], demo);
      expect(ui, ui.stdout + ui.stderr).toMatchObject({ code: 0 });
      const entry = await readFile(path.join(demo, 'ui/dist/main.js'), 'utf8');
      expect(entry).toMatch(/from ["']@svc\/console-shared["']/);
      expect(entry).toMatch(/import\(["']\.\/NotesPage-[\w-]+\.js["']\)/);
      const page = (await readdir(path.join(demo, 'ui/dist'))).find((f) => /^NotesPage-.*\.js$/.test(f)) ?? '';
      const chunk = await readFile(path.join(demo, 'ui/dist', page), 'utf8');
      expect(chunk).toMatch(/from ["']primevue\/datatable["']/);
      expect(entry.length + chunk.length).toBeLessThan(20_000);

      const tested = await node(VITEST, ['run', '--root', demo], demo);
      expect(tested, tested.stdout + tested.stderr).toMatchObject({ code: 0 });
      // The reconciler's logic, and the plugin (just bundled) in a real svc started by @svc/plugin-testing.
      expect(tested.stdout).toMatch(/Tests\s+8 passed \(8\)/);
      expect(tested.stdout).toContain('src/plugin.test.ts (3 tests)');
      expect(tested.stdout).not.toMatch(/failed/);
    },
    SLOW,
  );

  describe('running on a real server', () => {
    let t: TestServer;
    let admin: Session;
    const note = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'demo.svc.run/v1alpha1',
      kind: 'Note',
      metadata: { name },
      spec,
    });

    beforeAll(async () => {
      t = await startTestServer({ pluginsDirs: [pluginsDir] });
      admin = await login(t, ADMIN.username, ADMIN.password);
    }, SLOW);
    afterAll(() => t?.close());

    it('starts the plugin', async () => {
      expect((await pluginReport(t, 'demo')).phase).toBe('STARTED');
    });

    it('lists its UI for the console, and serves the bundle', async () => {
      const uis = await t.request('GET', '/apis/api.console.svc.run/v1alpha1/plugins/-/uis');
      const demoUi = uis.body.items.find((ui: { name: string }) => ui.name === 'demo');
      expect(demoUi).toMatchObject({ displayName: 'Demo', version: '0.1.0' });
      expect((await t.anonymous('GET', demoUi.entry)).text).toContain('@svc/console-shared');
    });

    it('serves the generated API to the administrator, with the schema enforced', async () => {
      const hello = await t.request(
        'POST',
        NOTES,
        note('hello', { title: 'Hello', body: 'Hello there, world', priority: 3, published: true }),
      );
      expect(hello.status, hello.text).toBe(201);
      expect((await t.request('POST', NOTES, note('draft', { title: 'Draft', body: 'not yet' }))).status).toBe(201);
      const bad = await t.request('POST', NOTES, note('bad', { title: 'x'.repeat(201), priority: 11 }));
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/spec/priority', '/spec/title']);
      const duplicate = await t.request('POST', NOTES, note('again', { title: 'Hello' }));
      expect(duplicate.status).toBe(409);
    });

    it('fills status through the reconciler', async () => {
      const deadline = Date.now() + 20_000;
      let status: unknown;
      while (Date.now() < deadline) {
        status = (await t.request('GET', `${NOTES}/hello`)).body?.status;
        if ((status as { phase?: string } | undefined)?.phase) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toMatchObject({ phase: 'Published', words: 3, excerpt: 'Hello there, world' });
    });

    it('answers the console stats API from the index', async () => {
      const stats = await t.request('GET', STATS);
      expect(stats.status, stats.text).toBe(200);
      expect(stats.body).toEqual({ total: 2, published: 1, drafts: 1 });
    });

    it('makes a draft from a title and a body on its typed route, refusing a body its schema does not allow', async () => {
      const made = await t.request('POST', DRAFTS, { title: 'Shopping', body: 'milk eggs' });
      expect(made.status, made.text).toBe(201);
      expect(made.body.metadata.name).toMatch(/^draft-[a-z0-9]+$/);
      expect(made.body.spec).toEqual({ title: 'Shopping', body: 'milk eggs', published: false });
      const refused = await t.request('POST', DRAFTS, { body: 'no title', published: true });
      expect(refused.status).toBe(400);
      expect(refused.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/published', '/title']);
      expect((await t.request('DELETE', `${NOTES}/${made.body.metadata.name}`)).status).toBe(200);
    });

    it('opens the public read API, and only it, to anonymous visitors', async () => {
      const listed = await t.anonymous('GET', PUBLIC_NOTES);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.items.map((n: { name: string }) => n.name)).toEqual(['hello']);
      expect((await t.anonymous('GET', `${PUBLIC_NOTES}/hello`)).body).toMatchObject({ title: 'Hello' });
      expect((await t.anonymous('GET', `${PUBLIC_NOTES}/draft`)).status).toBe(404);
      expect((await t.anonymous('GET', NOTES)).status).toBe(401);
      expect((await t.anonymous('GET', STATS)).status).toBe(401);
      expect((await t.anonymous('POST', NOTES, note('anon', { title: 'Anon' }))).status).toBe(401);
    });

    it('lets a holder of the view template read but not write, and the manage template write', async () => {
      const viewer = as(t, await userWithRoles(t, admin, 'viewer', ['demo-role-view-notes']));
      expect((await viewer('GET', NOTES)).status).toBe(200);
      expect((await viewer('GET', STATS)).status).toBe(200);
      expect((await viewer('POST', NOTES, note('by-viewer', { title: 'By viewer' }))).status).toBe(403);

      const manager = as(t, await userWithRoles(t, admin, 'manager', ['demo-role-manage-notes']));
      expect((await manager('POST', NOTES, note('by-manager', { title: 'By manager' }))).status).toBe(201);
      expect((await manager('GET', NOTES)).status).toBe(200);
    });
  });

  describe('pack', () => {
    it(
      'archives the built plugin under demo/, without sources or node_modules, identically twice',
      async () => {
        const first = path.join(tmp, 'out-1');
        const packed = await svc('plugin', 'pack', demo, '--out', first);
        expect(packed, packed.stderr).toMatchObject({ code: 0 });
        const archive = path.join(first, 'demo-0.1.0.tgz');
        expect(packed.stdout).toContain(archive);

        const entries = await entriesOf(archive);
        expect(entries).toEqual(
          expect.arrayContaining([
            'demo/',
            'demo/plugin.yaml',
            'demo/package.json',
            'demo/README.md',
            'demo/extensions/roles.yaml',
            'demo/dist/index.js',
          ]),
        );
        expect(entries.every((e) => e.startsWith('demo/'))).toBe(true);
        expect(entries.filter((e) => /node_modules|^demo\/src\/|tsconfig|\.gitignore|\.test\./.test(e))).toEqual([]);
        expect(entries).toEqual([...entries].sort());

        const second = path.join(tmp, 'out-2');
        expect((await svc('plugin', 'pack', demo, '--out', second)).code).toBe(0);
        expect((await readFile(path.join(second, 'demo-0.1.0.tgz'))).equals(await readFile(archive))).toBe(true);
      },
      SLOW,
    );

    it(
      'installs the packed archive on a running server, where it starts and serves its public API',
      async () => {
        const out = path.join(tmp, 'out-install');
        expect((await svc('plugin', 'pack', demo, '--out', out)).code).toBe(0);
        const server = await startTestServer({ pluginsDirs: [] });
        try {
          const boundary = 'svc-cli-test';
          const body = Buffer.concat([
            Buffer.from(
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="demo-0.1.0.tgz"\r\n\r\n`,
            ),
            await readFile(path.join(out, 'demo-0.1.0.tgz')),
            Buffer.from(`\r\n--${boundary}--\r\n`),
          ]);
          const console = '/apis/api.console.svc.run/v1alpha1/plugins';
          const installed = await server.request('POST', `${console}/install`, body, {
            'content-type': `multipart/form-data; boundary=${boundary}`,
          });
          expect(installed.status, installed.text).toBe(201);
          const started = await server.request('PUT', `${console}/demo/plugin-state`, { enable: true });
          expect(started.body.status.phase, started.text).toBe('STARTED');
          expect((await server.anonymous('GET', PUBLIC_NOTES)).status).toBe(200);
          expect((await server.anonymous('GET', NOTES)).status).toBe(401);
        } finally {
          await server.close();
        }
      },
      SLOW,
    );

    it(
      "packs the repository's people plugin the same way",
      async () => {
        const out = path.join(tmp, 'out-people');
        const packed = await svc('plugin', 'pack', path.join(REPO, 'plugins/people'), '--out', out);
        expect(packed, packed.stderr).toMatchObject({ code: 0 });
        const entries = await entriesOf(path.join(out, 'people-1.0.0.tgz'));
        expect(entries).toEqual(
          expect.arrayContaining([
            'people/plugin.yaml',
            'people/package.json',
            'people/dist/index.js',
            'people/extensions/roles.yaml',
          ]),
        );
        expect(entries.filter((e) => /node_modules|^people\/src\/|tsbuildinfo|\.test\./.test(e))).toEqual([]);
      },
      SLOW,
    );

    it(
      'follows globs and ! in "files", and packs for a host other than this one, with a warning',
      async () => {
        const folder = path.join(tmp, 'globby');
        await writeTree(folder, {
          'plugin.yaml': manifestOf('globby', '1.2.3', '>=99.0.0', 'dist/index.js'),
          'package.json': JSON.stringify({ name: 'globby', files: ['dist/**/*.js', '!dist/**/*.test.js'] }),
          'README.md': '# globby\n',
          LICENSE: 'MIT\n',
          'dist/index.js': 'export default { start() {} };\n',
          'dist/index.test.js': '',
          'dist/index.js.map': '{}',
          'dist/lib/util.js': '',
          'src/index.ts': '',
        });
        const packed = await svc('plugin', 'pack', folder, '--out', path.join(tmp, 'out-globby'));
        expect(packed, packed.stderr).toMatchObject({ code: 0 });
        expect(packed.stderr).toMatch(/warning: spec\.requires ">=99\.0\.0" does not include this host's version/);
        expect(await entriesOf(path.join(tmp, 'out-globby', 'globby-1.2.3.tgz'))).toEqual([
          'globby/',
          'globby/LICENSE',
          'globby/README.md',
          'globby/dist/',
          'globby/dist/index.js',
          'globby/dist/lib/',
          'globby/dist/lib/util.js',
          'globby/package.json',
          'globby/plugin.yaml',
        ]);
      },
      SLOW,
    );

    it(
      'without "files", packs everything but node_modules, dot files and archives',
      async () => {
        const folder = path.join(tmp, 'plain');
        await writeTree(folder, {
          'plugin.yaml': manifestOf('plain', '2.0.0', '>=0.0.1', 'index.js'),
          'index.js': 'export default { start() {} };\n',
          'src/index.ts': '',
          'node_modules/dep/index.js': '',
          '.git/HEAD': '',
          '.env': 'SECRET=1\n',
          '.npmrc': '//registry/:_authToken=x\n',
          'plain-1.0.0.tgz': '',
          'old.zip': '',
        });
        const out = path.join(tmp, 'out-plain');
        expect((await svc('plugin', 'pack', folder, '--out', out)).code).toBe(0);
        expect(await entriesOf(path.join(out, 'plain-2.0.0.tgz'))).toEqual([
          'plain/',
          'plain/index.js',
          'plain/plugin.yaml',
          'plain/src/',
          'plain/src/index.ts',
        ]);
      },
      SLOW,
    );

    it(
      'refuses a folder that was not built, naming spec.main',
      async () => {
        const parent = path.join(tmp, 'unbuilt');
        expect((await svc('plugin', 'create', 'unbuilt', '--dir', parent)).code).toBe(0);
        const packed = await svc(
          'plugin',
          'pack',
          path.join(parent, 'unbuilt'),
          '--out',
          path.join(tmp, 'out-unbuilt'),
        );
        expect(packed.code).not.toBe(0);
        expect(packed.stderr).toMatch(/spec\.main dist\/index\.js/);
        expect(packed.stderr).toMatch(/npm run build/);
        await expect(stat(path.join(tmp, 'out-unbuilt', 'unbuilt-0.1.0.tgz'))).rejects.toThrow();
      },
      SLOW,
    );

    it(
      'refuses symbolic links',
      async () => {
        const parent = path.join(tmp, 'linked');
        expect((await svc('plugin', 'create', 'linked', '--dir', parent)).code).toBe(0);
        const folder = path.join(parent, 'linked');
        await mkdir(path.join(folder, 'dist'));
        await writeFile(path.join(folder, 'dist/index.js'), 'export default { start() {} };\n');
        await symlink('index.js', path.join(folder, 'dist/alias.js'));
        const packed = await svc('plugin', 'pack', folder, '--out', path.join(tmp, 'out-linked'));
        expect(packed.code).not.toBe(0);
        expect(packed.stderr).toMatch(/dist\/alias\.js is a symbolic link/);
      },
      SLOW,
    );
  });

  describe('create refuses', () => {
    it.each([
      ['a name that is not a DNS label', 'Bad_Name', /lowercase letters, digits and '-'/],
      ['a name longer than 63 characters', 'a'.repeat(64), /at most 63 characters/],
      ['a reserved name', 'core', /reserved for the service/],
      ['a folder that exists and is not empty', 'demo', /already exists and is not empty/],
    ])(
      '%s, with exit code 2',
      async (_, name, message) => {
        const created = await svc('plugin', 'create', name, '--dir', pluginsDir);
        expect(created.code).toBe(2);
        expect(created.stderr).toMatch(message);
      },
      SLOW,
    );

    it(
      'a missing name, with the usage',
      async () => {
        const created = await svc('plugin', 'create');
        expect(created.code).toBe(2);
        expect(created.stderr).toMatch(/a plugin name is required[\s\S]*usage: svc plugin create <name>/);
      },
      SLOW,
    );
  });
});
