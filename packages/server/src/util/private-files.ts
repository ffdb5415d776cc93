/**
 * What svc keeps under its data directory (the database with password hashes and token digests, the TLS keys,
 * installed plugins' code) is its owner's alone: the directory 0700, every file 0600 (0700 for an executable one).
 *
 * Modes are given explicitly where files are made, rather than by setting the process umask: the umask is the whole
 * process's (it would also change what `svc plugin pack` or a plugin writes elsewhere, where the user's umask is
 * right), and a worker thread may not set it.
 */
import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_EXECUTABLE_MODE = 0o700;

/**
 * Makes `dir` (0700) if it is missing, and takes group and other permissions away from it and from everything under
 * it (the owner's own bits are kept; symbolic links under it are left alone: their target may not be ours). Answers
 * the paths it changed, for a warning: a data directory made by an older svc, or copied with a wider umask.
 */
export async function makePrivateTree(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const changed: string[] = [];
  const visit = async (entry: string, root = false): Promise<void> => {
    // The directory itself may be a link to where the data lives; links inside it are left alone.
    const stats = root ? await stat(entry) : await lstat(entry);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) {
      await chmod(entry, stats.mode & 0o700);
      changed.push(entry);
    }
    if (stats.isDirectory()) for (const name of await readdir(entry)) await visit(path.join(entry, name));
  };
  await visit(dir, true);
  return changed;
}
