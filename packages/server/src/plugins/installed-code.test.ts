import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { create } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstalledCode } from './installed-code.js';

/** A .tgz of a folder `demo/` holding these files. */
async function archiveOf(files: Record<string, string>, scratch: string): Promise<Buffer> {
  const folder = await mkdtemp(path.join(scratch, 'src-'));
  await mkdir(path.join(folder, 'demo'));
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(folder, 'demo', name), content);
  const chunks: Buffer[] = [];
  for await (const chunk of create({ gzip: true, cwd: folder, portable: true }, ['demo'])) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('installed code', () => {
  let scratch: string;
  let code: InstalledCode;
  let v1: Buffer;
  let v2: Buffer;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'svc-installed-'));
    code = new InstalledCode(path.join(scratch, 'plugins'));
    v1 = await archiveOf({ 'plugin.yaml': 'v1', 'index.js': 'one' }, scratch);
    // An archive that claims a digest of its own: svc writes the real one over it.
    v2 = await archiveOf({ 'plugin.yaml': 'v2', 'index.js': 'two', '.archive-digest': 'f'.repeat(64) }, scratch);
  });
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  const read = (file: string) => readFile(path.join(code.folderOf('demo'), file), 'utf8');

  it('puts staged code in place, recording the digest of the archive it came from', async () => {
    const placed = await code.place('demo', await code.stage(v1));
    expect(placed).toEqual({ folder: code.folderOf('demo') });
    expect(await read('index.js')).toBe('one');
    expect(await code.digestOf(placed.folder)).toBe(sha256(v1));
    expect(await code.folders()).toEqual([code.folderOf('demo')]);
  });

  it('keeps the previous code when asked, until it is put back or discarded', async () => {
    const placed = await code.place('demo', await code.stage(v2), { keepPrevious: true });
    expect(await read('index.js')).toBe('two');
    expect(await code.digestOf(placed.folder)).toBe(sha256(v2));
    await placed.previous!.restore();
    expect(await read('index.js')).toBe('one');
    expect(await code.digestOf(placed.folder)).toBe(sha256(v1));

    const again = await code.place('demo', await code.stage(v2), { keepPrevious: true });
    await again.previous!.discard();
    expect(await read('index.js')).toBe('two');
    expect((await readdir(code.directory)).sort()).toEqual(['demo']);
  });

  it('removes the code it replaced unless asked to keep it, and knows no digest of a folder without one', async () => {
    await code.place('demo', await code.stage(v1));
    expect((await readdir(code.directory)).sort()).toEqual(['demo']);
    await rm(path.join(code.folderOf('demo'), '.archive-digest'));
    expect(await code.digestOf(code.folderOf('demo'))).toBeUndefined();
    await code.remove('demo');
    expect(await code.folders()).toEqual([]);
  });
});
