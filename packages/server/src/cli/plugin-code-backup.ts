/**
 * The code of plugins installed from archives lives in files, `<data dir>/plugins/<name>/` (plugins/installed-code.ts),
 * not in the store, whichever database holds the objects. A backup carries each folder as a gzipped tar so a restore
 * on a new machine can start those plugins again; plugins from SVC_PLUGINS_DIR are the operator's files, not svc's data.
 */
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { create } from 'tar';
import { InstalledCode, type StagedCode } from '../plugins/installed-code.js';

export function installedPluginsDir(dataDir: string): string {
  return path.join(dataDir, 'plugins');
}

/** [name, gzipped tar of the folder] for each installed plugin (staging folders, starting with a dot, are skipped). */
export async function* packInstalledPlugins(dataDir: string): AsyncIterable<[string, Buffer]> {
  const directory = installedPluginsDir(dataDir);
  if (!existsSync(directory)) return;
  for (const name of (await readdir(directory)).sort()) {
    if (name.startsWith('.') || !(await stat(path.join(directory, name))).isDirectory()) continue;
    if (!existsSync(path.join(directory, name, 'plugin.yaml'))) continue;
    const chunks: Buffer[] = [];
    for await (const chunk of create({ gzip: true, cwd: directory, portable: true }, [name])) {
      chunks.push(chunk as Buffer);
    }
    yield [name, Buffer.concat(chunks)];
  }
}

/** Plugins' code unpacked beside the installed plugins, not yet in place (see stagePluginCode). */
export interface StagedPlugins {
  /** Moves each plugin's folder into place, `<dataDir>/plugins/<name>/`. */
  place(): Promise<void>;
  /** Removes what is staged and not yet placed. */
  discard(): Promise<void>;
}

/**
 * Unpacks each plugin's code into a staging folder under `<dataDir>/plugins`, checked as an uploaded archive is
 * (plugins/archive.ts: no link, no path outside the folder, the size limits; files its owner's alone). Staged before the
 * store is written, so that an archive that will not unpack stops the import with nothing written; placed after.
 * Refuses a plugin whose folder exists already. Staging folders start with a dot: a server removes any left behind.
 */
export async function stagePluginCode(
  dataDir: string,
  plugins: ReadonlyArray<{ name: string; archive: Buffer }>,
): Promise<StagedPlugins> {
  const code = new InstalledCode(installedPluginsDir(dataDir));
  for (const { name } of plugins) {
    if (existsSync(code.folderOf(name))) {
      throw new Error(`${code.folderOf(name)} exists already: remove it, or import into an empty data directory`);
    }
  }
  const staged: Array<{ name: string; code: StagedCode }> = [];
  const discard = async () => {
    for (const { code } of staged.splice(0)) await code.discard();
  };
  try {
    for (const { name, archive } of plugins) staged.push({ name, code: await code.stage(archive) });
  } catch (error) {
    await discard();
    throw new Error(`the code of a plugin will not unpack: ${(error as Error).message}`);
  }
  return {
    async place() {
      while (staged.length > 0) {
        const { name, code: one } = staged[0]!;
        await code.place(name, one);
        staged.shift();
      }
    },
    discard,
  };
}
