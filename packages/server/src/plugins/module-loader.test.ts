import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { codeIdentity, pluginLoaderHooksUrl } from './module-loader.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A plugin folder: an entry, a nested file, and a node_modules that neither fingerprint reads. */
async function pluginFolder(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'svc-code-'));
  dirs.push(folder);
  await mkdir(path.join(folder, 'dist'));
  await mkdir(path.join(folder, 'node_modules', 'dep'), { recursive: true });
  await writeFile(path.join(folder, 'plugin.yaml'), 'name: demo\n');
  await writeFile(path.join(folder, 'dist', 'index.js'), 'export default { start() {} };\n');
  await writeFile(path.join(folder, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
  return folder;
}

describe('plugin code fingerprints', () => {
  it('digests the same files alike wherever and whenever they were copied; the generation follows the times', async () => {
    const first = await pluginFolder();
    const copy = await mkdtemp(path.join(tmpdir(), 'svc-code-'));
    dirs.push(copy);
    await cp(first, copy, { recursive: true });
    const later = new Date(Date.now() + 60_000);
    await utimes(path.join(copy, 'dist', 'index.js'), later, later);

    const [original, copied] = [await codeIdentity(first), await codeIdentity(copy)];
    expect(copied.digest).toBe(original.digest);
    expect(copied.generation).not.toBe(original.generation);
  });

  const cases: Array<[string, boolean, (folder: string) => Promise<void>]> = [
    [
      'a byte of a file changes',
      true,
      (f) => writeFile(path.join(f, 'dist', 'index.js'), 'export default { start() {}};\n'),
    ],
    ['a file is added', true, (f) => writeFile(path.join(f, 'dist', 'extra.js'), '')],
    [
      'a file is renamed',
      true,
      async (f) => {
        await rm(path.join(f, 'plugin.yaml'));
        await writeFile(path.join(f, 'plugin.yml'), 'name: demo\n');
      },
    ],
    ['only node_modules changes', false, (f) => writeFile(path.join(f, 'node_modules', 'dep', 'index.js'), 'x')],
  ];
  it.each(cases)('when %s, the digest changes: %s', async (_, changes, change) => {
    const folder = await pluginFolder();
    const before = (await codeIdentity(folder)).digest;
    await change(folder);
    expect((await codeIdentity(folder)).digest !== before).toBe(changes);
  });
});

describe('the plugin resolution hooks', () => {
  it.each([
    ['the build', 'file:///svc/packages/server/dist/plugins/module-loader.js', 'dist/plugins/loader-hooks.js'],
    ['the sources', 'file:///svc/packages/server/src/plugins/module-loader.ts', 'src/plugins/loader-hooks.ts'],
  ])('are found beside the loader in %s', (_name, self, hooks) => {
    expect(pluginLoaderHooksUrl(self).href).toBe(`file:///svc/packages/server/${hooks}`);
  });

  it('run from the sources here, so no build is needed first', () => {
    const file = fileURLToPath(pluginLoaderHooksUrl());
    expect(existsSync(file)).toBe(true);
    expect(path.relative(path.dirname(fileURLToPath(import.meta.url)), file)).toBe('loader-hooks.ts');
  });
});
