import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/private-files.js';
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

/** The code a placement replaced, kept beside the new code until it is discarded or put back. */
export interface PreviousCode {
  /** Puts the previous code back in place of the new code (which is removed). */
  restore(): Promise<void>;
  discard(): Promise<void>;
}

export interface PlacedCode {
  folder: string;
  /** Only when the placement was asked to keep it and there was code before. */
  previous?: PreviousCode;
}

/**
 * Inside each installed plugin's folder, the digest of the archive it was unpacked from: the folder carries what it
 * is (a backup packs it with the folder), so after a restart the server still knows which archive's code it holds. A
 * dot file: the code's own fingerprints (module-loader.ts) leave it out.
 */
const DIGEST_FILE = '.archive-digest';

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

  /**
   * Moves staged code into place as plugin `name` (replacing any code it had), recording the archive's digest in it.
   * The replaced code is removed, or with `keepPrevious` kept (a dot folder, which a boot removes) for the caller to
   * put back or discard.
   */
  async place(name: string, staged: StagedCode, options: { keepPrevious?: boolean } = {}): Promise<PlacedCode> {
    const folder = this.folderOf(name);
    const old = path.join(this.directory, `.old-${name}-${randomBytes(6).toString('hex')}`);
    // Written by svc whatever the archive held under that name.
    await rm(path.join(staged.root, DIGEST_FILE), { recursive: true, force: true });
    await writeFile(path.join(staged.root, DIGEST_FILE), `${staged.digest}\n`, { mode: PRIVATE_FILE_MODE });
    const hadCode = await exists(folder);
    if (hadCode) await rename(folder, old);
    try {
      await rename(staged.root, folder);
    } catch (error) {
      if (hadCode) await rename(old, folder);
      throw error;
    }
    await staged.discard();
    const discard = () => rm(old, { recursive: true, force: true });
    if (!hadCode) return { folder };
    if (!options.keepPrevious) {
      await discard();
      return { folder };
    }
    const restore = async () => {
      await rm(folder, { recursive: true, force: true });
      await rename(old, folder);
    };
    return { folder, previous: { restore, discard } };
  }

  /** The digest of the archive the code in `folder` was unpacked from, when it records one. */
  async digestOf(folder: string): Promise<string | undefined> {
    const text = await readFile(path.join(folder, DIGEST_FILE), 'utf8').catch(() => undefined);
    const digest = text?.trim();
    return digest && /^[0-9a-f]{64}$/.test(digest) ? digest : undefined;
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
