import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareImportsOf } from './pack-imports.js';

describe("the imports pack reads from a plugin's code", () => {
  let root: string;
  const files: Record<string, string> = {
    'dist/index.js': `import { definePlugin } from '@svc/plugin-api';
import fs from 'node:fs';
import path from 'path';
import ms from 'ms';
import { helper } from './lib/helper.js';
import config from './config.json' with { type: 'json' };
import internal from '#internal';
export { thing } from '@scope/pkg/sub/path.js';
const late = () => import('lazy-package');
const computed = (name) => import(name);
console.log(import.meta.url);
export default definePlugin({ start() {} });
`,
    'dist/lib/helper.js':
      "import fp from 'lodash/fp';\nimport { helper as again } from '../index.js';\nexport const helper = 1;\n",
    // Never imported from the entry: its imports are not the plugin's.
    'dist/unused.js': "import 'unused-package';\n",
    // Imported, but not in the archive (left out by "files"): not followed.
    'dist/left-out.js': "import 'left-out-package';\n",
    'dist/config.json': '{}',
  };

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'svc-pack-imports-'));
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), content);
    }
    await writeFile(path.join(root, 'dist/index.js'), `import './left-out.js';\n${files['dist/index.js']}`);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('follows local files, and names each bare import with its package, builtins and the host API aside', async () => {
    const packed = new Set(['dist/index.js', 'dist/lib/helper.js', 'dist/unused.js', 'dist/config.json']);
    expect(await bareImportsOf(root, 'dist/index.js', packed)).toEqual([
      { file: 'dist/index.js', specifier: 'ms', packageName: 'ms' },
      { file: 'dist/index.js', specifier: '@scope/pkg/sub/path.js', packageName: '@scope/pkg' },
      { file: 'dist/index.js', specifier: 'lazy-package', packageName: 'lazy-package' },
      { file: 'dist/lib/helper.js', specifier: 'lodash/fp', packageName: 'lodash' },
    ]);
  });

  it('refuses a file that is not an ES module, naming it', async () => {
    await writeFile(path.join(root, 'broken.js'), 'import { from "x";\n');
    await expect(bareImportsOf(root, 'broken.js', new Set(['broken.js']))).rejects.toThrow(
      /^broken\.js cannot be read as an ES module/,
    );
  });
});
