import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger as PinoLogger } from 'pino';
import type { CodePlacement } from './code-placement.js';
import type { InstalledCode } from './installed-code.js';
import type { PluginHost } from './plugin-host.js';

export interface DiscoveryDeps {
  host: PluginHost;
  installed: InstalledCode;
  placement: CodePlacement;
  logger: PinoLogger;
}

/**
 * Boot discovery: the host resolves the code installed from archives before, then every folder holding a plugin.yaml
 * and every .tgz or .zip archive of the SVC_PLUGINS_DIR directories, in name order. A plugin that cannot be read is
 * logged, naming where it was found, and left out: the server and the other plugins carry on. Nothing starts here.
 * Answers the names of the plugins found as archives in SVC_PLUGINS_DIR (they run at first sight, like folders there).
 */
export async function discoverPlugins(directories: string[], deps: DiscoveryDeps): Promise<Set<string>> {
  const { installed, placement, logger } = deps;
  const dropped = new Set<string>();
  for (const folder of await installed.folders()) {
    await tryLoad(() => placement.resolveFolder(folder, 'archive'), folder, logger);
  }
  for (const directory of directories) {
    for (const entry of (await readdir(directory)).sort()) {
      const file = path.join(directory, entry);
      if (/\.(tgz|zip)$/i.test(entry) && (await isFile(file))) {
        await tryLoad(async () => dropped.add(await placeAtBoot(file, deps)), file, logger);
      } else if (await isFile(path.join(file, 'plugin.yaml'))) {
        await tryLoad(() => placement.resolveFolder(file, 'directory'), file, logger);
      }
    }
  }
  return dropped;
}

/** An archive in SVC_PLUGINS_DIR: put in place unless the code held is this very archive's. Answers its plugin. */
async function placeAtBoot(file: string, deps: DiscoveryDeps): Promise<string> {
  const { host, placement } = deps;
  let name = '';
  await placement.placeArchive(await readFile(file), ({ manifest, digest }) => {
    name = manifest.metadata.name;
    const known = host.get(name);
    if (known?.source === 'directory')
      throw new Error(`a plugin named "${name}" is already loaded from ${known.folder}`);
    return known?.digest !== digest;
  });
  return name;
}

async function tryLoad(load: () => Promise<unknown>, where: string, logger: PinoLogger): Promise<void> {
  try {
    await load();
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
