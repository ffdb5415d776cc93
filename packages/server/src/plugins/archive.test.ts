import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { create } from 'tar';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import yazl from 'yazl';
import { ArchiveError, type ArchiveLimits, extractPluginArchive } from './archive.js';

type Format = 'tgz' | 'zip';
/** One entry of a test archive. `size` (tar) declares a size other than the data's; `mode` may carry a file type. */
interface Item {
  name: string;
  data?: string | Buffer;
  dir?: boolean;
  mode?: number;
  tarType?: string;
  linkname?: string;
  size?: number;
}

const MANIFEST = 'apiVersion: plugin.svc.run/v1alpha1\nkind: Plugin\nmetadata:\n  name: demo\n';
const MiB = 1024 * 1024;

// --- .tgz: raw ustar headers, because node-tar's creator will not write `..`, links to anywhere or lying sizes. ---
const octal = (value: number, width: number): string => `${value.toString(8).padStart(width - 1, '0')}\0`;

/** A 512-byte ustar header (name, mode, size, typeflag, linkname, checksum) and the data padded to 512 bytes. */
function tarEntry(item: Item): Buffer {
  const data = Buffer.from(item.data ?? '');
  const header = Buffer.alloc(512);
  header.write(item.name, 0, 100);
  header.write(octal(item.mode ?? (item.dir ? 0o755 : 0o644), 8), 100);
  header.write(octal(0, 8), 108); // uid
  header.write(octal(0, 8), 116); // gid
  header.write(octal(item.size ?? data.length, 12), 124);
  header.write(octal(0, 12), 136); // mtime
  header.write(item.tarType ?? (item.dir ? '5' : '0'), 156);
  header.write(item.linkname ?? '', 157, 100);
  header.write('ustar\x0000', 257);
  header.write(' '.repeat(8), 148); // the checksum counts its own field as spaces
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return Buffer.concat([header, data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

const tgz = (items: Item[]): Buffer => gzipSync(Buffer.concat([...items.map(tarEntry), Buffer.alloc(1024)]));

// --- .zip: yazl; names it refuses (or rewrites, like backslashes) are patched into its output afterwards. ---
async function zip(items: Item[]): Promise<Buffer> {
  const file = new yazl.ZipFile();
  for (const item of items) {
    if (item.dir) file.addEmptyDirectory(item.name, item.mode === undefined ? {} : { mode: item.mode });
    else file.addBuffer(Buffer.from(item.data ?? ''), item.name, item.mode === undefined ? {} : { mode: item.mode });
  }
  file.end();
  const chunks: Buffer[] = [];
  for await (const chunk of file.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Replaces a same-length placeholder name in both the local header and the central directory. */
function patchName(archive: Buffer, placeholder: string, name: string): Buffer {
  const [from, to] = [Buffer.from(placeholder), Buffer.from(name)];
  expect(to.length).toBe(from.length);
  const patched = Buffer.from(archive);
  let found = 0;
  for (let at = patched.indexOf(from); at !== -1; at = patched.indexOf(from, at + 1), found++) to.copy(patched, at);
  expect(found).toBe(2);
  return patched;
}

/**
 * Calls `patch` at the local file header (PK\3\4) and the central directory header (PK\1\2) of entry `name`,
 * for changing fields yazl writes honestly (flags, sizes). Offsets: flags at 6 (local) / 8 (central), uncompressed
 * size at 22 / 24, name length at 26 / 28, name at 30 / 46.
 */
function patchHeaders(
  archive: Buffer,
  name: string,
  patch: (buffer: Buffer, at: number, central: boolean) => void,
): Buffer {
  const patched = Buffer.from(archive);
  let found = 0;
  for (let at = 0; at + 46 <= patched.length; at++) {
    const signature = patched.readUInt32LE(at);
    if (signature !== 0x04034b50 && signature !== 0x02014b50) continue;
    const central = signature === 0x02014b50;
    const start = at + (central ? 46 : 30);
    const length = patched.readUInt16LE(at + (central ? 28 : 26));
    if (patched.subarray(start, start + length).toString() !== name) continue;
    patch(patched, at, central);
    found++;
  }
  expect(found).toBe(2);
  return patched;
}

const make = (format: Format, items: Item[]): Promise<Buffer> =>
  format === 'tgz' ? Promise.resolve(tgz(items)) : zip(items);
const both: Format[] = ['tgz', 'zip'];

let tmp: string;
let count = 0;
const fresh = (): string => path.join(tmp, `dest-${++count}`);
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'svc-archive-test-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('extractPluginArchive: good archives', () => {
  const cases: { title: string; format: Format; items: Item[]; top: string; entries: number }[] = [
    ...both.flatMap((format) => [
      {
        title: 'plugin.yaml at the root',
        format,
        top: '',
        entries: 4,
        items: [
          { name: 'plugin.yaml', data: MANIFEST },
          { name: 'index.js', data: 'export default {};\n', mode: 0o4777 },
          { name: 'extensions/', dir: true },
          { name: 'extensions/roles.yaml', data: 'kind: Role\n' },
        ],
      },
      {
        title: 'one top folder package/',
        format,
        top: 'package',
        entries: 5,
        items: [
          { name: 'package/', dir: true },
          { name: 'package/plugin.yaml', data: MANIFEST },
          { name: 'package/index.js', data: 'export default {};\n', mode: 0o755 },
          { name: 'package/extensions/', dir: true },
          { name: 'package/extensions/roles.yaml', data: 'kind: Role\n' },
        ],
      },
      {
        title: 'several MiB of incompressible data (many chunks, backpressure)',
        format,
        top: 'demo',
        entries: 4,
        items: [
          { name: 'demo/plugin.yaml', data: MANIFEST },
          { name: 'demo/index.js', data: 'export default {};\n' },
          { name: 'demo/a.bin', data: randomBytes(3 * MiB + 17) },
          { name: 'demo/b.bin', data: randomBytes(2 * MiB) },
        ],
      },
    ]),
    {
      title: 'names starting with ./ and a ./ entry',
      format: 'tgz',
      top: '',
      entries: 3,
      items: [
        { name: './', dir: true },
        { name: './plugin.yaml', data: MANIFEST },
        { name: './index.js', data: 'export default {};\n' },
      ],
    },
  ];

  it.each(cases)('$format: $title', async ({ format, items, top, entries }) => {
    const archive = await make(format, items);
    const destination = fresh();
    const result = await extractPluginArchive(archive, destination);
    const root = path.join(destination, top);
    expect(result.root).toBe(root);
    expect(result.entries).toBe(entries);
    expect(result.digest).toBe(createHash('sha256').update(archive).digest('hex'));
    const files = items.filter((item) => !item.dir && item.data !== undefined);
    expect(result.bytes).toBe(files.reduce((total, item) => total + Buffer.byteLength(item.data ?? ''), 0));
    for (const item of files)
      expect((await readFile(path.join(destination, item.name))).equals(Buffer.from(item.data ?? ''))).toBe(true);
    // No owner or odd mode from the archive: no setuid/sticky, nothing for group or others (the data dir is its
    // owner's alone); the executable bit may stay.
    const index = await stat(path.join(root, 'index.js'));
    expect(index.mode & 0o7077).toBe(0);
    expect((await stat(path.join(root, 'plugin.yaml'))).mode & 0o7777).toBe(0o600);
    expect((await stat(root)).mode & 0o7777).toBe(0o700);
    expect(index.uid).toBe(process.getuid?.());
  });

  // What macOS adds when it packs a folder (the Finder's zip, its tar), beside a plugin in a folder of its own.
  const macItems: Item[] = [
    { name: 'demo/', dir: true },
    { name: 'demo/plugin.yaml', data: MANIFEST },
    { name: 'demo/index.js', data: 'export default {};\n' },
    { name: 'demo/.DS_Store', data: 'Bud1' },
    { name: 'demo/._index.js', data: 'Mac OS X apple double' },
    { name: '__MACOSX/', dir: true },
    { name: '__MACOSX/demo/', dir: true },
    { name: '__MACOSX/demo/._plugin.yaml', data: 'Mac OS X apple double' },
  ];
  it.each(both)('%s: a folder packed on macOS is unpacked without its system metadata', async (format) => {
    const destination = fresh();
    const result = await extractPluginArchive(await make(format, macItems), destination);
    expect(result.root).toBe(path.join(destination, 'demo'));
    // Every entry is counted (and was checked), but only the plugin's own files are written.
    expect(result.entries).toBe(macItems.length);
    expect(existsSync(path.join(destination, '__MACOSX'))).toBe(false);
    expect(existsSync(path.join(destination, 'demo', '.DS_Store'))).toBe(false);
    expect(existsSync(path.join(destination, 'demo', '._index.js'))).toBe(false);
    expect(await readFile(path.join(destination, 'demo', 'index.js'), 'utf8')).toBe('export default {};\n');
  });

  it.each(both)('%s: a metadata entry is still checked like any other', async (format) => {
    const destination = fresh();
    const name = '__MACOSX/../../escape.js';
    // yazl will not write `..`: the zip gets a same-length placeholder, replaced in its bytes.
    const placeholder = 'q'.repeat(name.length);
    const archive =
      format === 'tgz'
        ? tgz([...macItems, { name, data: 'x' }])
        : patchName(await zip([...macItems, { name: placeholder, data: 'x' }]), placeholder, name);
    await expect(extractPluginArchive(archive, destination)).rejects.toThrow(/"\.\." segment|\.\.|relative path/);
    expect(existsSync(destination)).toBe(false);
  });

  it('tgz: an archive written by node-tar (pax header for a long name) is unpacked; pax headers are not entries', async () => {
    const source = path.join(tmp, 'source');
    const long = `${'x'.repeat(120)}.js`;
    await mkdir(path.join(source, 'demo'), { recursive: true });
    await writeFile(path.join(source, 'demo', 'plugin.yaml'), MANIFEST);
    await writeFile(path.join(source, 'demo', long), 'export default {};\n');
    const chunks: Buffer[] = [];
    for await (const chunk of create({ gzip: true, cwd: source, portable: true }, ['demo']))
      chunks.push(chunk as Buffer);
    const destination = fresh();
    const result = await extractPluginArchive(Buffer.concat(chunks), destination);
    expect(result.root).toBe(path.join(destination, 'demo'));
    expect(result.entries).toBe(3);
    expect(await readFile(path.join(destination, 'demo', long), 'utf8')).toBe('export default {};\n');
  });
});

describe('extractPluginArchive: refused archives leave nothing behind', () => {
  const manifest: Item = { name: 'plugin.yaml', data: MANIFEST };
  const bomb = Buffer.alloc(50 * MiB); // compresses to ~50 KB
  interface Bad {
    title: string;
    archive: () => Buffer | Promise<Buffer>;
    /** What the message must say, and the entry it must name (as written, or JSON-quoted). */
    problem: RegExp;
    entry?: string;
    limits?: Partial<ArchiveLimits>;
    /** Most bytes that may have been written before the archive was refused. */
    maxWritten?: number;
  }
  /** Names that must be refused, each in an archive that is otherwise fine. */
  const badNames: [string, RegExp][] = [
    ['../escape.js', /\.\.|relative path/],
    ['a/../../escape.js', /\.\.|relative path/],
    ['/etc/passwd', /absolute/],
    ['C:/evil.js', /absolute/],
    ['a\\evil.js', /backslash|invalid characters/],
    ['\\evil.js', /backslash|invalid characters/],
    ['C:\\evil.js', /backslash|invalid characters/],
  ];
  /**
   * A plugin archive with one more file named `name`. The tgz writes it as it is; yazl refuses or rewrites such
   * names, so the zip is made with a same-length placeholder that is then replaced in the output's bytes.
   */
  const withName = async (format: Format, name: string): Promise<Buffer> => {
    if (format === 'tgz') return tgz([manifest, { name, data: 'x' }]);
    const placeholder = 'y'.repeat(Buffer.byteLength(name));
    return patchName(await zip([manifest, { name: placeholder, data: 'x' }]), placeholder, name);
  };
  const bad: Bad[] = [
    ...both.flatMap((format): Bad[] => [
      ...badNames.map(
        ([name, problem]): Bad => ({
          title: `${format}: name ${JSON.stringify(name)}`,
          entry: name,
          problem,
          archive: () => withName(format, name),
        }),
      ),
      {
        title: `${format}: symbolic link`,
        entry: 'link.js',
        problem: /symbolic link/,
        archive: () =>
          format === 'tgz'
            ? tgz([manifest, { name: 'link.js', tarType: '2', linkname: '/etc/passwd' }])
            : zip([manifest, { name: 'link.js', data: '/etc/passwd', mode: 0o120777 }]),
      },
      {
        title: `${format}: the same file twice`,
        entry: 'plugin.yaml',
        problem: /appears twice/,
        archive: () => make(format, [manifest, manifest]),
      },
      {
        title: `${format}: too many entries`,
        entry: 'c.js',
        problem: /3 entries allowed/,
        limits: { maxEntries: 3 },
        archive: () =>
          make(format, [
            manifest,
            { name: 'a.js', data: 'a' },
            { name: 'b.js', data: 'b' },
            { name: 'c.js', data: 'c' },
          ]),
      },
      {
        title: `${format}: too many bytes (honest sizes)`,
        entry: 'b.js',
        problem: /limit of 1000 bytes/,
        limits: { maxBytes: 1000 },
        maxWritten: 1000,
        archive: () =>
          make(format, [manifest, { name: 'a.js', data: 'a'.repeat(600) }, { name: 'b.js', data: 'b'.repeat(600) }]),
      },
      {
        title: `${format}: bomb, 50 MB of zeros with a 1 MB limit`,
        entry: 'bomb.bin',
        problem: /limit of 1048576 bytes/,
        limits: { maxBytes: MiB },
        maxWritten: MiB,
        archive: () => make(format, [manifest, { name: 'bomb.bin', data: bomb }]),
      },
      {
        title: `${format}: a file and a folder under one name`,
        entry: 'lib/index.js',
        problem: /cannot be written/,
        archive: () => make(format, [manifest, { name: 'lib', data: 'x' }, { name: 'lib/index.js', data: 'x' }]),
      },
      {
        title: `${format}: no plugin.yaml`,
        problem: /no plugin\.yaml at its root or in its single top-level folder/,
        archive: () => make(format, [{ name: 'index.js', data: 'x' }]),
      },
      {
        title: `${format}: two top-level folders`,
        problem: /no plugin\.yaml.*"a", "b"/,
        archive: () =>
          make(format, [
            { name: 'a/plugin.yaml', data: MANIFEST },
            { name: 'b/index.js', data: 'x' },
          ]),
      },
    ]),
    // Tar only: links, devices and FIFOs have no zip form besides the symlink's mode, tested above.
    {
      title: 'tgz: hard link',
      entry: 'hard.js',
      problem: /hard link/,
      archive: () => tgz([manifest, { name: 'hard.js', tarType: '1', linkname: 'plugin.yaml' }]),
    },
    {
      title: 'tgz: FIFO',
      entry: 'pipe',
      problem: /FIFO/,
      archive: () => tgz([manifest, { name: 'pipe', tarType: '6' }]),
    },
    {
      title: 'tgz: character device',
      entry: 'tty',
      problem: /character device/,
      archive: () => tgz([manifest, { name: 'tty', tarType: '3' }]),
    },
    {
      title: 'tgz: block device',
      entry: 'sda',
      problem: /block device/,
      archive: () => tgz([manifest, { name: 'sda', tarType: '4' }]),
    },
    {
      title: 'tgz: unknown entry type',
      entry: 'odd',
      problem: /unknown tar type/,
      archive: () => tgz([manifest, { name: 'odd', tarType: 'Z' }]),
    },
    {
      title: 'tgz: a header lying about its size (truncated)',
      entry: 'big.js',
      problem: /damaged.*Truncated/,
      archive: () => tgz([manifest, { name: 'big.js', data: 'only ten b', size: 100_000 }]),
    },
    {
      title: 'tgz: a header with a bad checksum',
      problem: /damaged.*checksum/,
      archive: () => gzipSync(Buffer.concat([tarEntry(manifest), Buffer.alloc(512, 'z'), Buffer.alloc(1024)])),
    },
    {
      title: 'tgz: gzip of a text file',
      problem: /damaged/,
      archive: () => gzipSync(Buffer.from('just some text\n'.repeat(100))),
    },
    { title: 'tgz: gzip cut short', problem: /damaged/, archive: () => tgz([manifest]).subarray(0, 40) },
    // Zip only. A NUL byte cannot be put in a ustar name (it ends the field), so it is tried in a zip.
    {
      title: 'zip: NUL byte in a name',
      entry: 'a\0b.js',
      problem: /NUL byte/,
      archive: () => withName('zip', 'a\0b.js'),
    },
    {
      title: 'zip: a FIFO by its mode bits',
      entry: 'pipe',
      problem: /special file/,
      archive: () => zip([manifest, { name: 'pipe', data: '', mode: 0o010644 }]),
    },
    {
      title: 'zip: encrypted entry (flag bit 0 set in both headers)',
      entry: 'secret.js',
      problem: /encrypted/,
      archive: async () =>
        patchHeaders(
          await zip([manifest, { name: 'secret.js', data: 'x'.repeat(100) }]),
          'secret.js',
          (b, at, central) => b.writeUInt16LE(b.readUInt16LE(at + (central ? 8 : 6)) | 1, at + (central ? 8 : 6)),
        ),
    },
    {
      title: 'zip: bomb whose headers claim 1000 bytes',
      entry: 'bomb.bin',
      problem: /too many bytes|limit of 1048576 bytes/,
      limits: { maxBytes: MiB },
      maxWritten: MiB,
      archive: async () =>
        patchHeaders(await zip([manifest, { name: 'bomb.bin', data: bomb }]), 'bomb.bin', (b, at, central) =>
          b.writeUInt32LE(1000, at + (central ? 24 : 22)),
        ),
    },
    {
      title: 'zip: truncated',
      problem: /zip archive is invalid/,
      archive: () => zip([manifest]).then((z) => z.subarray(0, z.length - 10)),
    },
    { title: 'zip: empty (PK\\5\\6)', problem: /no plugin\.yaml.*it is empty/, archive: () => zip([]) },
    {
      title: 'random bytes',
      problem: /^not a \.tgz or \.zip archive$/,
      archive: () => Buffer.concat([Buffer.from('XX'), randomBytes(2000)]),
    },
    { title: 'a plain text file', problem: /^not a \.tgz or \.zip archive$/, archive: () => Buffer.from(MANIFEST) },
    { title: 'an empty upload', problem: /^not a \.tgz or \.zip archive$/, archive: () => Buffer.alloc(0) },
  ];

  it.each(bad)('$title', async ({ archive, problem, entry, limits, maxWritten }) => {
    const bytes = await archive();
    const destination = fresh();
    // Every write of the extraction goes through a FileHandle: count what reaches the disk.
    const probe = await open(path.join(tmp, 'probe'), 'w');
    const write = vi.spyOn(Object.getPrototypeOf(probe) as { write: (chunk: Buffer, at?: number) => unknown }, 'write');
    await probe.close();
    const started = Date.now();
    try {
      const error: unknown = await extractPluginArchive(bytes, destination, limits).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ArchiveError);
      const message = (error as ArchiveError).message;
      expect((error as ArchiveError).name).toBe('ArchiveError');
      expect(message).toMatch(problem);
      if (entry !== undefined) expect(message.includes(entry) || message.includes(JSON.stringify(entry))).toBe(true);
      expect(existsSync(destination)).toBe(false);
      const written = write.mock.calls.reduce((total, [chunk, at]) => total + chunk.length - (at ?? 0), 0);
      if (maxWritten !== undefined) expect(written).toBeLessThanOrEqual(maxWritten);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      write.mockRestore();
    }
  });

  it('refuses a destination that already exists, and leaves it as it was', async () => {
    const destination = fresh();
    await mkdir(destination);
    await writeFile(path.join(destination, 'keep.txt'), 'mine');
    await expect(extractPluginArchive(tgz([manifest]), destination)).rejects.toThrow(/already exists/);
    expect(await readFile(path.join(destination, 'keep.txt'), 'utf8')).toBe('mine');
  });
});
