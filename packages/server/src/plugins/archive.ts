/**
 * Unpacks an uploaded plugin archive (.tgz or .zip) into a new folder.
 *
 * An uploaded archive is untrusted input at the system's boundary, so it is checked here by hand on top of what
 * node-tar and yauzl already do: their defaults are tuned to be lenient with odd archives (node-tar skips or rewrites
 * bad entries with a warning, yauzl turns backslashes into slashes), while an install must either unpack exactly
 * what is announced or refuse with a reason. Every entry's name, type, count and bytes (counted as they are
 * written, not as headers declare) are checked; links and special files are refused, never skipped; no owner or
 * mode is taken from the archive; and on any failure the destination folder is removed before the error is thrown.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';
import { PRIVATE_DIR_MODE, PRIVATE_EXECUTABLE_MODE, PRIVATE_FILE_MODE } from '../util/private-files.js';

export interface ArchiveLimits {
  /** Total bytes of all files once extracted (counted as written, not as the archive declares). */
  maxBytes: number;
  /** Number of entries (files + directories). */
  maxEntries: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxBytes: 100 * 1024 * 1024, maxEntries: 10_000 };

export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

export interface ExtractedArchive {
  /** Folder that holds plugin.yaml: `destination` itself, or its single top-level folder (e.g. `package/` or `<name>/`). */
  root: string;
  entries: number;
  bytes: number;
  /** sha256 hex of the archive bytes. */
  digest: string;
}

/** File system errors an archive can cause by itself (two entries fighting over one name, a name too long). */
const ARCHIVE_CAUSED = new Set(['EEXIST', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG']);
const TAR_FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const TAR_TYPE_NAMES: Record<string, string> = {
  SymbolicLink: 'a symbolic link',
  Link: 'a hard link',
  CharacterDevice: 'a character device',
  BlockDevice: 'a block device',
  FIFO: 'a FIFO',
};
/** Unix file types, as a zip made on Unix keeps them in the high 16 bits of an entry's external attributes. */
const [S_IFMT, S_IFDIR, S_IFREG, S_IFLNK] = [0o170000, 0o040000, 0o100000, 0o120000];

const quote = (name: string): string => JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
const refuse = (name: string, problem: string): ArchiveError => new ArchiveError(`entry ${quote(name)} ${problem}`);

/**
 * Unpacks `archive` (a .tgz or .zip, told apart by its first bytes) into `destination`, which must not exist yet.
 * Throws an ArchiveError saying what is wrong with the archive (the destination is then gone); other errors (disk
 * full, permissions) are the host's and are thrown as they are, after the same clean-up.
 */
export async function extractPluginArchive(
  archive: Buffer,
  destination: string,
  limits: Partial<ArchiveLimits> = {},
): Promise<ExtractedArchive> {
  const format = formatOf(archive);
  const dest = path.resolve(destination);
  await mkdir(path.dirname(dest), { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    await mkdir(dest, { mode: PRIVATE_DIR_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new ArchiveError(`the destination ${dest} already exists`);
    throw error;
  }
  const target = new Extraction(dest, {
    maxBytes: limits.maxBytes ?? DEFAULT_ARCHIVE_LIMITS.maxBytes,
    maxEntries: limits.maxEntries ?? DEFAULT_ARCHIVE_LIMITS.maxEntries,
  });
  try {
    await (format === 'tgz' ? untar(archive, target) : unzip(archive, target));
    const digest = createHash('sha256').update(archive).digest('hex');
    return { root: target.root(), entries: target.entries, bytes: target.bytes, digest };
  } catch (error) {
    await rm(dest, { recursive: true, force: true });
    throw error;
  }
}

/** Told by the magic bytes, never by a file name: gzip, a zip's first local header, or an empty zip. */
function formatOf(archive: Buffer): 'tgz' | 'zip' {
  const magic = archive.subarray(0, 4).toString('latin1');
  if (magic.startsWith('\x1f\x8b')) return 'tgz';
  if (magic === 'PK\x03\x04' || magic === 'PK\x05\x06') return 'zip';
  throw new ArchiveError('not a .tgz or .zip archive');
}

/**
 * What macOS adds when it packs a folder: the Finder's zip puts resource forks under `__MACOSX/` beside the folder,
 * its tar adds `._<name>` AppleDouble files, and `.DS_Store` files ride along in both. They are not the plugin's, and
 * `__MACOSX/` would otherwise read as a second top-level folder.
 */
function isSystemMetadata(parts: readonly string[], kind: 'file' | 'directory'): boolean {
  if (parts[0] === '__MACOSX') return true;
  const last = parts[parts.length - 1] ?? '';
  return kind === 'file' && (last === '.DS_Store' || last.startsWith('._'));
}

/** A file system error of the host (disk full, permissions), as opposed to a fault of the archive. */
const isHostError = (error: unknown): boolean => typeof (error as { syscall?: unknown }).syscall === 'string';

/** What has been unpacked so far into `dest`, and the checks every entry goes through, whatever the format. */
class Extraction {
  entries = 0;
  bytes = 0;
  private declared = 0;
  private readonly kinds = new Map<string, 'file' | 'directory'>();
  private readonly tops = new Set<string>();

  constructor(
    private readonly dest: string,
    private readonly limits: ArchiveLimits,
  ) {}

  /**
   * Checks an entry before anything is written; returns its clean relative path ('' for the archive's `./`), or
   * undefined for an operating system's metadata entry, which passes the same checks and is then left out.
   */
  admit(raw: string, kind: 'file' | 'directory', declaredSize: number): string | undefined {
    if (raw.includes('\0')) throw refuse(raw, 'has a NUL byte in its name');
    if (raw.includes('\\')) throw refuse(raw, 'has a backslash in its name');
    if (raw.startsWith('/') || /^[a-zA-Z]:/.test(raw)) throw refuse(raw, 'has an absolute path');
    const parts = raw.split('/').filter((part) => part !== '' && part !== '.');
    if (parts.includes('..')) throw refuse(raw, 'has a ".." segment in its path');
    if (++this.entries > this.limits.maxEntries)
      throw refuse(raw, `is one more than the ${this.limits.maxEntries} entries allowed`);
    if (isSystemMetadata(parts, kind)) return undefined;
    const name = parts.join('/');
    if (name === '' && kind === 'file') throw refuse(raw, 'is a file without a name');
    const seen = this.kinds.get(name);
    if (seen && (seen === 'file' || kind === 'file')) throw refuse(raw, 'appears twice in the archive');
    this.kinds.set(name, kind);
    if (parts[0] !== undefined) this.tops.add(parts[0]);
    if (kind === 'file') this.declared += declaredSize;
    if (this.declared > this.limits.maxBytes) throw this.tooBig(raw);
    return name;
  }

  async directory(name: string): Promise<void> {
    if (name !== '')
      await this.fs(name, () => mkdir(path.join(this.dest, name), { recursive: true, mode: PRIVATE_DIR_MODE }));
  }

  /**
   * Writes a file 0600 (0700 if the archive marks it executable: the data dir is its owner's alone), counting its bytes as they arrive. The data is
   * opened only once the file is: a zip entry stream that fails before anyone listens would be an uncaught error.
   */
  async file(
    name: string,
    executable: boolean,
    source: () => AsyncIterable<Buffer> | Promise<AsyncIterable<Buffer>>,
  ): Promise<void> {
    const file = path.join(this.dest, name);
    const handle = await this.fs(name, async () => {
      await mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      return open(file, 'wx', executable ? PRIVATE_EXECUTABLE_MODE : PRIVATE_FILE_MODE);
    });
    try {
      for await (const chunk of await source()) {
        this.bytes += chunk.length;
        if (this.bytes > this.limits.maxBytes) throw this.tooBig(name);
        for (let at = 0; at < chunk.length; ) at += (await handle.write(chunk, at)).bytesWritten;
      }
    } finally {
      await handle.close();
    }
  }

  /** The folder holding plugin.yaml. */
  root(): string {
    if (this.kinds.get('plugin.yaml') === 'file') return this.dest;
    const [top, ...others] = this.tops;
    if (top !== undefined && others.length === 0 && this.kinds.get(`${top}/plugin.yaml`) === 'file')
      return path.join(this.dest, top);
    const found =
      this.tops.size === 0
        ? 'it is empty'
        : `it holds ${[...this.tops].slice(0, 5).map(quote).join(', ')}${this.tops.size > 5 ? ', …' : ''}`;
    throw new ArchiveError(`the archive has no plugin.yaml at its root or in its single top-level folder (${found})`);
  }

  private tooBig(name: string): ArchiveError {
    return refuse(name, `takes the unpacked files over the limit of ${this.limits.maxBytes} bytes`);
  }

  private async fs<T>(name: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code && ARCHIVE_CAUSED.has(code))
        throw refuse(name, `cannot be written (${code}): it clashes with another entry or its name is too long`);
      throw error;
    }
  }
}

/**
 * A .tgz: gunzipped here (node-tar's own gunzip would also accept brotli, zstd or a decompression ratio we did not
 * choose), then parsed by node-tar's Parser in strict mode, so a bad checksum or a truncated body is an error and
 * not a warning. Pax and GNU long-name headers are read by the Parser and are not entries.
 */
async function untar(archive: Buffer, target: Extraction): Promise<void> {
  const parser = new Parser({ strict: true, zstd: false, brotli: false });
  let failure: unknown;
  let current: ReadEntry | undefined;
  let wake = (): void => {};
  let work = Promise.resolve();
  const fail = (error: unknown): void => {
    if (failure !== undefined) return;
    const entry = (error as { entry?: ReadEntry }).entry ?? current;
    failure =
      error instanceof ArchiveError || isHostError(error)
        ? error
        : new ArchiveError(
            `the .tgz archive is damaged${entry ? ` at entry ${quote(entry.path)}` : ''}: ${(error as Error).message}`,
          );
    current?.destroy();
    wake();
  };
  const until = (event: 'drain' | 'end') =>
    new Promise<void>((resolve) => {
      if (failure !== undefined) return resolve();
      wake = resolve;
      parser.once(event, () => resolve());
    });
  parser.on('error', fail);
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    const what = entry.meta
      ? `has an oversized ${entry.type} header`
      : `is of ${entry.type === 'Unsupported' ? 'an unknown tar type' : `the unsupported tar type ${entry.type}`}: only files and folders are allowed`;
    fail(refuse(entry.path, what));
  });
  parser.on('entry', (entry: ReadEntry) => {
    try {
      const kind = entry.type === 'Directory' ? 'directory' : TAR_FILE_TYPES.has(entry.type) ? 'file' : undefined;
      if (!kind) {
        const link = entry.linkpath ? ` (to ${quote(entry.linkpath)})` : '';
        throw refuse(
          entry.path,
          `is ${TAR_TYPE_NAMES[entry.type] ?? `of type ${entry.type}`}${link}: only files and folders are allowed`,
        );
      }
      const name = target.admit(entry.path, kind, entry.size);
      // A directory has no body, but the Parser waits for its 'end'; a left-out entry's body is drained unread.
      if (kind === 'directory' || name === undefined) entry.resume();
      if (name === undefined) return;
      work = work
        .then(async () => {
          if (failure !== undefined) return;
          current = entry;
          if (kind === 'directory') await target.directory(name);
          else await target.file(name, ((entry.mode ?? 0) & 0o111) !== 0, () => entry);
          current = undefined;
        })
        .catch(fail);
    } catch (error) {
      fail(error);
    }
  });
  const gunzip = createGunzip();
  gunzip.end(archive);
  try {
    for await (const chunk of gunzip) {
      if (failure === undefined && !parser.write(chunk as Buffer)) await until('drain');
      if (failure !== undefined) break;
    }
    if (failure === undefined) {
      const ended = until('end');
      parser.end();
      await ended;
    }
  } catch (error) {
    fail(error);
  } finally {
    gunzip.destroy();
  }
  await work;
  if (failure !== undefined) throw failure;
}

/** A .zip, read with yauzl (which also refuses absolute names, `..` and backslashes) one entry at a time. */
async function unzip(archive: Buffer, target: Extraction): Promise<void> {
  let zip: yauzl.ZipFile | undefined;
  let current: string | undefined;
  try {
    const file = (zip = await yauzl.fromBufferPromise(archive, {
      lazyEntries: true,
      validateEntrySizes: true,
      strictFileNames: true,
      decodeStrings: true,
    }));
    for await (const entry of file.eachEntry()) {
      const name = (current = entry.fileName);
      const mode = entry.externalFileAttributes >>> 16;
      const type = mode & S_IFMT;
      if (type === S_IFLNK) throw refuse(name, 'is a symbolic link: only files and folders are allowed');
      if (type !== 0 && type !== S_IFREG && type !== S_IFDIR)
        throw refuse(name, `is a special file (mode 0o${type.toString(8)}): only files and folders are allowed`);
      if (entry.isEncrypted()) throw refuse(name, 'is encrypted');
      if (!entry.canDecodeFileData())
        throw refuse(
          name,
          `uses compression method ${entry.compressionMethod} (only stored and deflate are supported)`,
        );
      const kind = name.endsWith('/') || type === S_IFDIR ? 'directory' : 'file';
      const clean = target.admit(name, kind, entry.uncompressedSize);
      if (clean === undefined) continue;
      if (kind === 'directory') await target.directory(clean);
      else await target.file(clean, (mode & 0o111) !== 0, () => file.openReadStreamPromise(entry));
      current = undefined;
    }
  } catch (error) {
    if (error instanceof ArchiveError || isHostError(error)) throw error;
    throw new ArchiveError(
      `the .zip archive is invalid${current ? ` at entry ${quote(current)}` : ''}: ${(error as Error).message}`,
    );
  } finally {
    zip?.close();
  }
}
