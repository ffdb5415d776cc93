/**
 * Issue 31 (plugin authoring): an upgrade runs the new code of the packages a hand-written plugin ships in its
 * node_modules, without a restart. Node caches modules (an ES module by URL, a CommonJS one by file name), and the
 * upgraded package sits at the same path: the host loads each code generation's packages afresh (loader-hooks.ts,
 * module-loader.ts). Over HTTP, on both stores: version 1's packages answer "one", version 2's "two".
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';
import { multipart } from './plugin-archives.js';

const CONSOLE = '/apis/api.console.svc.run/v1alpha1/plugins';
const ROUTE = '/apis/console.api.shipped.svc.run/v1alpha1/answer';

/** The plugin `shipped` at `version`, whose two packages (CommonJS, with a file it requires; an ES module) say `word`. */
function shipped(version: string, word: string): Record<string, string> {
  return {
    'plugin.yaml': `apiVersion: plugin.svc.run/v1alpha1\nkind: Plugin\nmetadata:\n  name: shipped\nspec:\n  version: ${version}\n  requires: ">=0.0.1"\n  main: index.js\n`,
    'package.json': JSON.stringify({
      name: 'shipped',
      type: 'module',
      dependencies: { 'cjs-dep': '1', 'esm-dep': '1' },
    }),
    'index.js': `import { definePlugin } from '@svc/plugin-api';
import cjs from 'cjs-dep';
import { word } from 'esm-dep';

export default definePlugin({
  async start(ctx) {
    ctx.routes.add({
      apiVersion: 'console.api.shipped.svc.run/v1alpha1',
      method: 'GET',
      path: '/answer',
      handler: async () => ({ cjs: cjs(), esm: word }),
    });
  },
});
`,
    'node_modules/cjs-dep/package.json': JSON.stringify({ name: 'cjs-dep', version: '1.0.0', main: 'index.js' }),
    'node_modules/cjs-dep/index.js': "const word = require('./word.js');\nmodule.exports = () => word;\n",
    'node_modules/cjs-dep/word.js': `module.exports = '${word}';\n`,
    'node_modules/esm-dep/package.json': JSON.stringify({
      name: 'esm-dep',
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
    }),
    'node_modules/esm-dep/index.js': `export const word = '${word}';\n`,
  };
}

async function archiveOf(tmp: string, files: Record<string, string>): Promise<Buffer> {
  const folder = await mkdtemp(path.join(tmp, 'v-'));
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(folder, 'shipped', file)), { recursive: true });
    await writeFile(path.join(folder, 'shipped', file), content);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of create({ gzip: true, cwd: folder, portable: true }, ['shipped'])) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

describe.each(BACKENDS)('an upgrade of the packages a plugin ships (%s)', (backend) => {
  let t: TestServer;
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'svc-shipped-'));
    t = await startTestServer({ backend, pluginsDirs: [] });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('serves the new packages after the upgrade, with no restart', async () => {
    const first = multipart(await archiveOf(tmp, shipped('1.0.0', 'one')));
    const installed = await t.request('POST', `${CONSOLE}/install`, first.body, first.headers);
    expect(installed.status, installed.text).toBe(201);
    const started = await t.request('PUT', `${CONSOLE}/shipped/plugin-state`, { enable: true });
    expect(started.body.status.phase, started.text).toBe('STARTED');
    expect((await t.request('GET', ROUTE)).body).toEqual({ cjs: 'one', esm: 'one' });

    const second = multipart(await archiveOf(tmp, shipped('1.0.1', 'two')));
    const upgraded = await t.request('POST', `${CONSOLE}/shipped/upgrade`, second.body, second.headers);
    expect(upgraded.status, upgraded.text).toBe(200);
    expect(upgraded.body.status).toMatchObject({ phase: 'STARTED', version: '1.0.1' });
    expect((await t.request('GET', ROUTE)).body).toEqual({ cjs: 'two', esm: 'two' });
  }, 120_000);
});
