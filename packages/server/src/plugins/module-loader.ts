import { createHash } from 'node:crypto';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { GENERATION_PARAM, ROOT_PARAM } from './loader-hooks.js';

const REGISTERED = Symbol.for('svc.plugin-loader-hooks');

/**
 * The hooks module beside this one, in the form this one runs as: the build's `.js`, or the source's `.ts` when the
 * sources run directly (the tests: Node.js strips the types of the hooks module itself, on its loader thread).
 */
export function pluginLoaderHooksUrl(self = import.meta.url): URL {
  return new URL(self.endsWith('.ts') ? './loader-hooks.ts' : './loader-hooks.js', self);
}

/** Registers the plugin resolution hooks once per process. */
export function registerPluginLoader(): void {
  const state = globalThis as { [REGISTERED]?: boolean };
  if (state[REGISTERED]) return;
  const hooks = pluginLoaderHooksUrl();
  const pluginApiUrl = pathToFileURL(createRequire(import.meta.url).resolve('@svc/plugin-api')).href;
  register(hooks.href, { data: { pluginApiUrl } });
  state[REGISTERED] = true;
}

/** The generation each plugin folder's code was last imported as. */
const importedGenerations = new Map<string, string>();

/**
 * Imports a plugin's entry file, inside the plugin folder `folder`, as the code generation `generation` (see
 * loader-hooks.ts). A new generation of a folder first empties Node's CommonJS cache of the packages in its
 * `node_modules`: that cache goes by file name, whatever the URL, so an upgraded package would otherwise keep the
 * code loaded first. Modules of the previous generation keep what they already hold.
 */
export async function importPluginEntry(entry: string, generation: string, folder: string): Promise<unknown> {
  registerPluginLoader();
  // As Node resolves module files: links followed (the test harness links plugin folders in).
  const root = await realpath(folder);
  const previous = importedGenerations.get(root);
  if (previous !== undefined && previous !== generation) forgetCommonJs(path.join(root, 'node_modules') + path.sep);
  importedGenerations.set(root, generation);
  const url = pathToFileURL(entry);
  url.searchParams.set(GENERATION_PARAM, generation);
  url.searchParams.set(ROOT_PARAM, pathToFileURL(root + path.sep).href);
  return import(url.href);
}

function forgetCommonJs(under: string): void {
  const cache = createRequire(import.meta.url).cache;
  for (const file of Object.keys(cache)) if (file.startsWith(under)) delete cache[file];
}

/** Two fingerprints of a plugin folder's code, from one walk of its files (dot folders aside). */
export interface CodeIdentity {
  /**
   * The folder's path and every file's path, size and modification time, its `node_modules` included: any edit,
   * upgrade or rebuild changes it. The generation a plugin's modules are imported as (a new one is loaded fresh).
   */
  generation: string;
  /**
   * Every file's path and content: the same on every replica that holds the same files, whenever and however they were
   * copied there. What index snapshots are bound to.
   */
  digest: string;
}

export async function codeIdentity(folder: string): Promise<CodeIdentity> {
  const generation = createHash('sha256').update(`${path.resolve(folder)}\n`);
  const digest = createHash('sha256');
  // Packages (node_modules) count for the generation by their files' sizes and times; the digest reads code alone.
  const walk = async (dir: string, packages: boolean): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full, packages || entry.name === 'node_modules');
      else if (entry.isFile()) {
        const relative = path.relative(folder, full);
        const info = await stat(full);
        generation.update(`${relative}\0${info.size}\0${info.mtimeMs}\n`);
        if (!packages)
          digest.update(
            `${relative}\0${createHash('sha256')
              .update(await readFile(full))
              .digest('hex')}\n`,
          );
      }
    }
  };
  await walk(folder, false);
  return { generation: generation.digest('hex').slice(0, 16), digest: digest.digest('hex').slice(0, 16) };
}
