/**
 * The one way plugin code gets onto this server: stage → check → place → resolve. Install and upgrade (an upload),
 * a replica fetching the archive another one installed, and boot (an archive dropped into SVC_PLUGINS_DIR) all place
 * code through `placeArchive`; code already in place at boot (an installed folder, a folder of SVC_PLUGINS_DIR) is only
 * resolved. The manifest is read once per placement, from the staged code, and handed to the host with it. Callers
 * run these under the plugin lifecycle's one-at-a-time lock, so a placement never meets a start or stop half done.
 */
import { badRequest, type PluginManifest } from '@svc/plugin-api';
import { ArchiveError } from './archive.js';
import type { InstalledCode, PreviousCode, StagedCode } from './installed-code.js';
import { ManifestError, readManifest } from './manifest.js';
import type { PluginHost, PluginRecord } from './plugin-host.js';

export interface CodePlacementDeps {
  host: PluginHost;
  installed: InstalledCode;
  hostVersion: string;
}

/** Staged code as a check sees it: its manifest and the archive's digest. */
export interface StagedPlugin {
  manifest: PluginManifest;
  digest: string;
}

export class CodePlacement {
  constructor(private readonly deps: CodePlacementDeps) {}

  /** Resolves code already in place: an installed folder (`archive`) or a folder of SVC_PLUGINS_DIR (`directory`). */
  async resolveFolder(folder: string, source: PluginRecord['source']): Promise<PluginRecord> {
    const { host, installed, hostVersion } = this.deps;
    const manifest = await readManifest(folder, hostVersion);
    const digest = source === 'archive' ? await installed.digestOf(folder) : undefined;
    return host.resolve({ folder, source, manifest, digest });
  }

  /**
   * Places an archive's code: staged (what is wrong with the archive itself is the sender's mistake: a 400 in the
   * archive's own terms), its manifest read, then `check`ed, which refuses by throwing or declines by answering false
   * (undefined is answered then). A plugin running the code about to be replaced is stopped first, its dependents left
   * running: code is never swapped under a running plugin, and the reconciler starts it again on the new code. With
   * `keepPrevious`, the code replaced is kept aside and handed to it, for an upgrade that may have to roll back.
   */
  async placeArchive(
    archive: Buffer,
    check: (staged: StagedPlugin) => boolean | Promise<boolean>,
    options: { keepPrevious?: (previous: PreviousCode) => void } = {},
  ): Promise<PluginRecord | undefined> {
    const { host, installed, hostVersion } = this.deps;
    const staged = await stage(installed, archive);
    try {
      const manifest = await readStagedManifest(staged, hostVersion);
      if (!(await check({ manifest, digest: staged.digest }))) return undefined;
      const name = manifest.metadata.name;
      if (host.isRunning(name)) await host.stop(name, { restarting: true });
      const { folder, previous } = await installed.place(name, staged, { keepPrevious: Boolean(options.keepPrevious) });
      if (previous) options.keepPrevious?.(previous);
      return host.resolve({ folder, source: 'archive', manifest, digest: staged.digest });
    } finally {
      // A no-op once the code is in place.
      await staged.discard();
    }
  }
}

async function stage(installed: InstalledCode, archive: Buffer): Promise<StagedCode> {
  try {
    return await installed.stage(archive);
  } catch (error) {
    if (error instanceof ArchiveError) throw badRequest(`the plugin archive was refused: ${error.message}`);
    throw error;
  }
}

async function readStagedManifest(staged: StagedCode, hostVersion: string): Promise<PluginManifest> {
  try {
    return await readManifest(staged.root, hostVersion);
  } catch (error) {
    // The staging path means nothing to the caller; the file inside the archive does.
    if (error instanceof ManifestError) throw badRequest(error.message.replace(error.where, 'plugin.yaml'));
    throw error;
  }
}
