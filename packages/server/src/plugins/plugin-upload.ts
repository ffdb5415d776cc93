import { badRequest } from '@svc/plugin-api';
import { ArchiveError } from './archive.js';
import type { InstalledCode, StagedCode } from './installed-code.js';
import { ManifestError, type PluginManifest, readManifest } from './manifest.js';

/**
 * Unpacks a plugin archive (an upload, or one found at boot) into staging, reads its manifest and runs `use` with
 * both; the staging folder goes whatever happens (a no-op once `use` put the code in place). What is wrong with the
 * archive itself is the sender's mistake: a 400 that says what, in the archive's own terms.
 */
export async function withStagedArchive<T>(
  installed: InstalledCode,
  hostVersion: string,
  archive: Buffer,
  use: (staged: StagedCode, manifest: PluginManifest) => Promise<T>,
): Promise<T> {
  const staged = await stage(installed, archive);
  try {
    return await use(staged, await readStagedManifest(staged, hostVersion));
  } finally {
    await staged.discard();
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
