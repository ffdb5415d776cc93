import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger as PinoLogger } from 'pino';
import type { InstalledCode } from './installed-code.js';
import type { PluginHost, PluginRecord } from './plugin-host.js';
import { ARCHIVE_DIGEST_ANNOTATION } from './plugin-model.js';
import type { PluginObjects } from './plugin-objects.js';
import { withStagedArchive } from './plugin-upload.js';

export interface DiscoveryDeps {
  host: PluginHost;
  installed: InstalledCode;
  plugins: PluginObjects;
  logger: PinoLogger;
  hostVersion: string;
}

/**
 * Boot discovery: the host resolves the code installed from archives before, then every folder holding a plugin.yaml
 * and every .tgz or .zip archive of the SVC_PLUGINS_DIR directories, in name order. A plugin that cannot be read is
 * logged, naming where it was found, and left out: the server and the other plugins carry on. Nothing starts here.
 */
export async function discoverPlugins(directories: string[], deps: DiscoveryDeps): Promise<void> {
  const { host, installed, logger } = deps;
  for (const folder of await installed.folders()) await tryLoad(() => host.resolve(folder, 'archive'), folder, logger);
  for (const directory of directories) {
    for (const entry of (await readdir(directory)).sort()) {
      const file = path.join(directory, entry);
      if (/\.(tgz|zip)$/i.test(entry) && (await isFile(file)))
        await tryLoad(() => installAtBoot(file, deps), file, logger);
      else if (await isFile(path.join(file, 'plugin.yaml')))
        await tryLoad(() => host.resolve(file, 'directory'), file, logger);
    }
  }
}

/** An archive in SVC_PLUGINS_DIR: installed (or upgraded) unless the same archive already is. */
async function installAtBoot(file: string, deps: DiscoveryDeps): Promise<PluginRecord> {
  const { host, installed, plugins } = deps;
  return withStagedArchive(installed, deps.hostVersion, await readFile(file), async (staged, manifest) => {
    const name = manifest.metadata.name;
    const known = host.get(name);
    if (known?.source === 'directory')
      throw new Error(`a plugin named "${name}" is already loaded from ${known.folder}`);
    const object = await plugins.fetch(name);
    if (known && object?.metadata.annotations?.[ARCHIVE_DIGEST_ANNOTATION] === staged.digest) return known;
    const record = await host.resolve(await installed.place(name, staged), 'archive');
    // First sight of an archive dropped into SVC_PLUGINS_DIR: it runs, like a folder there.
    await plugins.ensure(record, { digest: staged.digest, enabled: true });
    return record;
  });
}

async function tryLoad(resolve: () => Promise<PluginRecord>, where: string, logger: PinoLogger): Promise<void> {
  try {
    await resolve();
  } catch (error) {
    logger.error({ source: where }, `plugin not loaded: ${(error as Error).message}`);
  }
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}
