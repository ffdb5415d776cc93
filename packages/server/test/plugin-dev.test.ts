/**
 * `svc plugin dev`, end to end: a scaffolded plugin in a temporary folder is built, packed and installed in a running
 * svc over HTTP; a change to a route's source is served after the save; a change that does not build leaves the
 * running code serving and the loop waiting for the next save, as does one that does not start (rolled back). Runs the built CLI (dist/cli.js).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, startTestServer, superAdminToken, type TestServer } from './harness.js';
import { CLI, childEnv } from './serve-process.js';

const STATS = '/apis/console.api.demo.svc.run/v1alpha1/stats';
const SLOW = 120_000;

describe('svc plugin dev', () => {
  let tmp: string;
  let demo: string;
  let t: TestServer;
  let base: string;
  let dev: ChildProcess | undefined;
  let output = '';

  /** Resolves once the loop's output has a line matching `pattern` after what was read so far. */
  const nextLine = (pattern: RegExp, from = output.length) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const line = output
          .slice(from)
          .split('\n')
          .find((l) => pattern.test(l));
        if (line !== undefined) return resolve(line);
        setTimeout(check, 25);
      };
      check();
    });
  const stats = async () => {
    const response = await fetch(`${base}${STATS}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: response.status === 200 ? await response.json() : undefined };
  };
  let token = '';

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'svc-plugin-dev-'));
    demo = path.join(tmp, 'demo');
    const created = await new Promise<number>((resolve) =>
      execFile(process.execPath, [CLI, 'plugin', 'create', 'demo', '--dir', tmp], { env: childEnv() }, (error) =>
        resolve(error ? 1 : 0),
      ),
    );
    expect(created).toBe(0);
    // No network in tests: the repository's node_modules holds @svc/plugin-api, typescript and vite.
    await symlink(path.join(REPO, 'node_modules'), path.join(demo, 'node_modules'), 'dir');
    t = await startTestServer({ pluginsDirs: [] });
    base = await t.server.listen();
    token = await superAdminToken(t, 'plugin-dev');
  }, SLOW);
  afterAll(async () => {
    dev?.kill('SIGINT');
    await t?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it(
    'builds, packs and installs the plugin, started, at its first run',
    async () => {
      expect((await stats()).status).toBe(404);
      dev = spawn(process.execPath, [CLI, 'plugin', 'dev', demo, '--server', base, '--token', token], {
        cwd: demo,
        // The build runs `npm run`, which finds the repository's Node.js through this PATH.
        env: childEnv({ NO_COLOR: '1', PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` }),
      });
      dev.stdout?.on('data', (chunk) => {
        output += String(chunk);
      });
      dev.stderr?.on('data', (chunk) => {
        output += String(chunk);
      });
      expect(await nextLine(/^plugin\/demo|svc plugin dev:/, 0)).toMatch(/^plugin\/demo 0\.1\.0 STARTED/);
      await nextLine(/^watching /, 0);
      expect(await stats()).toEqual({ status: 200, body: { total: 0, published: 0, drafts: 0 } });
    },
    SLOW,
  );

  it(
    'serves a changed route after the save',
    async () => {
      const routes = path.join(demo, 'src/routes.ts');
      const source = await readFile(routes, 'utf8');
      const from = output.length;
      await writeFile(routes, source.replace("drafts: byPublished['false'] ?? 0,", "drafts: 7, edited: 'yes',"));
      const line = await nextLine(/^plugin\/demo|svc plugin dev:/, from);
      expect(line).toMatch(/^plugin\/demo 0\.1\.0 STARTED — \d+ ms from save to served$/);
      expect(await stats()).toEqual({ status: 200, body: { total: 0, published: 0, drafts: 7, edited: 'yes' } });
    },
    SLOW,
  );

  it(
    'keeps the running code when a save does not build, and serves the next one that does',
    async () => {
      const routes = path.join(demo, 'src/routes.ts');
      const source = await readFile(routes, 'utf8');
      let from = output.length;
      await writeFile(routes, source.replace("edited: 'yes',", "edited: 'yes' +,"));
      // The scaffold's build:server script bundles with esbuild, which names the file and line that does not build.
      expect(await nextLine(/^plugin\/demo|svc plugin dev:/, from)).toBe(
        'svc plugin dev: node bundle.mjs failed (exit 1)',
      );
      expect(output.slice(from)).toMatch(/src\/routes\.ts:\d+:\d+/);
      expect((await stats()).body.edited).toBe('yes');

      from = output.length;
      await writeFile(routes, source.replace("edited: 'yes',", "edited: 'again',"));
      expect(await nextLine(/^plugin\/demo|svc plugin dev:/, from)).toMatch(/^plugin\/demo 0\.1\.0 STARTED/);
      expect((await stats()).body.edited).toBe('again');
    },
    SLOW,
  );

  it(
    'keeps the running code when a save does not start (the upgrade is rolled back), and serves the next one that does',
    async () => {
      const routes = path.join(demo, 'src/routes.ts');
      const source = await readFile(routes, 'utf8');
      let from = output.length;
      await writeFile(routes, `throw new Error('boom');\n${source}`);
      expect(await nextLine(/^plugin\/demo|svc plugin dev:/, from)).toMatch(
        /^plugin\/demo 0\.1\.0 failed to start \(boom\); the code before serves — \d+ ms$/,
      );
      expect((await stats()).body.edited).toBe('again');

      from = output.length;
      await writeFile(routes, source.replace("edited: 'again',", "edited: 'fixed',"));
      expect(await nextLine(/^plugin\/demo|svc plugin dev:/, from)).toMatch(/^plugin\/demo 0\.1\.0 STARTED/);
      expect((await stats()).body.edited).toBe('fixed');
    },
    SLOW,
  );
});
