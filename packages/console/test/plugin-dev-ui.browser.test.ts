/**
 * A plugin UI served by its author's Vite dev server inside the console (`svc plugin dev --ui`), in Chromium: with the
 * server's SVC_PLUGIN_DEV_ORIGINS naming the dev server, the console loads the scaffold's UI from Vite (the console's
 * own Vue through its import map), and a saved edit of the page's component reloads the open page with it (the console
 * runs Vue's production build, which has no hot-update runtime).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripTypesBuild } from '../../server/src/cli/dev-build.js';
import { REPO } from '../../server/test/harness.js';
import { CLI, childEnv } from '../../server/test/serve-process.js';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const VITE = path.join(REPO, 'node_modules/vite/bin/vite.js');

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe.skipIf(!browserAvailable)('a plugin UI from the Vite dev server, in Chromium', () => {
  let tmp: string;
  let demo: string;
  let vite: ChildProcess | undefined;
  let c: ConsoleUnderTest;
  let devOrigin: string;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'svc-dev-ui-'));
    demo = path.join(tmp, 'demo');
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [CLI, 'plugin', 'create', 'demo', '--dir', tmp], { env: childEnv() }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    await symlink(path.join(REPO, 'node_modules'), path.join(demo, 'node_modules'), 'dir');
    await stripTypesBuild(demo);
    const port = await freePort();
    devOrigin = `http://127.0.0.1:${port}`;
    vite = spawn(process.execPath, [VITE, 'ui', '--port', String(port)], { cwd: demo, env: childEnv() });
    let out = '';
    vite.stdout?.on('data', (d) => {
      out += String(d);
    });
    while (!out.includes('ready in')) await new Promise((resolve) => setTimeout(resolve, 50));
    c = await startConsole({ pluginsDirs: [tmp], env: { SVC_PLUGIN_DEV_ORIGINS: devOrigin } });
    const annotated = await c.t.request(
      'PATCH',
      '/apis/plugin.svc.run/v1alpha1/plugins/demo',
      JSON.stringify({ metadata: { annotations: { 'plugin.svc.run/dev-ui': `${devOrigin}/src/index.ts` } } }),
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(annotated.status, annotated.text).toBe(200);
  }, 120_000);
  afterAll(async () => {
    vite?.kill('SIGTERM');
    await c?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('loads the page from Vite and reloads it with a saved edit', async () => {
    const { page } = await c.signedIn(TEST_ADMIN, '/console/demo/notes');
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.getByRole('heading', { name: 'Notes', level: 1 }).waitFor();
    // Marks the page: the reload the save brings loses it.
    await page.evaluate(() => {
      (window as unknown as { before: boolean }).before = true;
    });
    const file = path.join(demo, 'ui/src/NotesPage.vue');
    const source = await readFile(file, 'utf8');
    const edited = source.replace(/<h1>.*<\/h1>/, '<h1>Notes, hot</h1>');
    expect(edited).not.toBe(source);
    await writeFile(file, edited);
    await page.getByRole('heading', { name: 'Notes, hot', level: 1 }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { before?: boolean }).before)).toBeUndefined();
    expect(errors).toEqual([]);
  }, 60_000);
});
