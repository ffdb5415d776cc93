import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE } from '../util/private-files.js';
import { type ArchiveLimits, extractPluginArchive } from './archive.js';

/** An uploaded archive unpacked into a private staging folder, not yet in place. */
export interface StagedCode {
  /** The folder holding plugin.yaml. */
  root: string;
  /** sha256 of the archive. */
  digest: string;
  /** Removes the staging folder (a no-op once the code was moved into place). */
  discard(): Promise<void>;
}

/**
 * The code of plugins installed from archives: `<data dir>/plugins/<name>/`, one folder each. An archive is unpacked
 * into a staging folder beside them and renamed into place, so a plugin folder is always either the old code or the
 * new code, never a mix.
 */
export class InstalledCode {
  constructor(
    readonly directory: string,
    private readonly limits?: Partial<ArchiveLimits>,
  ) {}

  folderOf(name: string): string {
    return path.join(this.directory, name);
  }

  /** Plugin folders present, after removing what an interrupted install or upgrade left behind. */
  async folders(): Promise<string[]> {
    await mkdir(this.directory, { recursive: true, mode: PRIVATE_DIR_MODE });
    const found: string[] = [];
    for (const entry of (await readdir(this.directory, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const folder = path.join(this.directory, entry.name);
      if (!entry.isDirectory()) continue;
      if (entry.name.startsWith('.')) {
        await rm(folder, { recursive: true, force: true });
        continue;
      }
      if (await exists(path.join(folder, 'plugin.yaml'))) found.push(folder);
    }
    return found;
  }

  async stage(archive: Buffer): Promise<StagedCode> {
    await mkdir(this.directory, { recursive: true, mode: PRIVATE_DIR_MODE });
    const staging = path.join(this.directory, `.staging-${randomBytes(6).toString('hex')}`);
    const extracted = await extractPluginArchive(archive, staging, this.limits);
    return {
      root: extracted.root,
      digest: extracted.digest,
      discard: () => rm(staging, { recursive: true, force: true }),
    };
  }

  /** Moves staged code into place as plugin `name` (replacing any code it had) and returns its folder. */
  async place(name: string, staged: StagedCode): Promise<string> {
    const folder = this.folderOf(name);
    const old = path.join(this.directory, `.old-${name}-${randomBytes(6).toString('hex')}`);
    const hadCode = await exists(folder);
    if (hadCode) await rename(folder, old);
    try {
      await rename(staged.root, folder);
    } catch (error) {
      if (hadCode) await rename(old, folder);
      throw error;
    }
    await rm(old, { recursive: true, force: true });
    await staged.discard();
    return folder;
  }

  async remove(name: string): Promise<void> {
    await rm(this.folderOf(name), { recursive: true, force: true });
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
