import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { GENERATION_PARAM } from './loader-hooks.js';

const REGISTERED = Symbol.for('svc.plugin-loader-hooks');

/**
 * Registers the plugin resolution hooks once per process. Both src/plugins and dist/plugins sit two levels below the
 * package root, so the compiled hooks are found from either (tests run the sources, `npm start` the build).
 */
export function registerPluginLoader(): void {
  const state = globalThis as { [REGISTERED]?: boolean };
  if (state[REGISTERED]) return;
  const hooks = new URL('../../dist/plugins/loader-hooks.js', import.meta.url);
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

/**
 * A fingerprint of a plugin folder's code: every file's path, size and modification time (node_modules and dot
 * folders aside). Cheap enough to take at every start; any edit, upgrade or rebuild changes it.
 */
export async function codeFingerprint(folder: string): Promise<string> {
  return fingerprintFiles(folder, async (full) => {
    const info = await stat(full);
    return `${info.size}\0${info.mtimeMs}`;
  });
}

/**
 * A digest of a plugin folder's code by content (node_modules and dot folders aside): the same on every replica that
 * holds the same files, whenever and however they were copied there. What index snapshots are bound to.
 */
export async function codeDigest(folder: string): Promise<string> {
  return fingerprintFiles(folder, async (full) =>
    createHash('sha256')
      .update(await readFile(full))
      .digest('hex'),
  );
}

async function fingerprintFiles(folder: string, describe: (file: string) => Promise<string>): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) hash.update(`${path.relative(folder, full)}\0${await describe(full)}\n`);
    }
  };
  await walk(folder);
  return hash.digest('hex').slice(0, 16);
}
