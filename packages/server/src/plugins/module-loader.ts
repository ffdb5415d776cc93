import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { GENERATION_PARAM } from './loader-hooks.js';

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

/** Imports a plugin's entry file as the code generation `generation` (see loader-hooks.ts). */
export async function importPluginEntry(entry: string, generation: string): Promise<unknown> {
  registerPluginLoader();
  const url = pathToFileURL(entry);
  url.searchParams.set(GENERATION_PARAM, generation);
  return import(url.href);
}

/** Two fingerprints of a plugin folder's code, from one walk of its files (node_modules and dot folders aside). */
export interface CodeIdentity {
  /**
   * Every file's path, size and modification time: any edit, upgrade or rebuild changes it. The generation a plugin's
   * modules are imported as (a new one is loaded fresh).
   */
  generation: string;
  /**
   * Every file's path and content: the same on every replica that holds the same files, whenever and however they were
   * copied there. What index snapshots are bound to.
   */
  digest: string;
}

export async function codeIdentity(folder: string): Promise<CodeIdentity> {
  const generation = createHash('sha256');
  const digest = createHash('sha256');
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        const relative = path.relative(folder, full);
        const [info, content] = await Promise.all([stat(full), readFile(full)]);
        generation.update(`${relative}\0${info.size}\0${info.mtimeMs}\n`);
        digest.update(`${relative}\0${createHash('sha256').update(content).digest('hex')}\n`);
      }
    }
  };
  await walk(folder);
  return { generation: generation.digest('hex').slice(0, 16), digest: digest.digest('hex').slice(0, 16) };
}
