/**
 * The code of plugins installed from archives lives in files, `<data dir>/plugins/<name>/` (plugins/installed-code.ts),
 * not in the store, whichever database holds the objects. A backup carries each folder as a gzipped tar so a restore
 * on a new machine can start those plugins again; plugins from SVC_PLUGINS_DIR are the operator's files, not svc's data.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create, extract } from 'tar';

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

/** Unpacks a plugin's folder into `<dataDir>/plugins/<name>/`; refuses to replace a folder already there. */
export async function unpackInstalledPlugin(dataDir: string, name: string, archive: Buffer): Promise<void> {
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(name)) throw new Error(`"${name}" is not a plugin name`);
  const directory = installedPluginsDir(dataDir);
  if (existsSync(path.join(directory, name))) {
    throw new Error(`${path.join(directory, name)} exists already: remove it, or import into an empty data directory`);
  }
  await mkdir(directory, { recursive: true });
  const outside: string[] = [];
  await pipeline(
    Readable.from([archive]),
    extract({
      cwd: directory,
      // Only the plugin's own folder: an entry elsewhere is refused, not written.
      filter: (entry) => {
        const inside = entry === name || entry.startsWith(`${name}/`);
        if (!inside) outside.push(entry);
        return inside;
      },
    }),
  );
  if (outside.length > 0) throw new Error(`the code of plugin ${name} held entries outside its folder: ${outside[0]}`);
}
