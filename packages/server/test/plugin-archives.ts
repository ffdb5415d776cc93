import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { create } from 'tar';
import yazl from 'yazl';

/** A .tgz of a plugin folder (node_modules left out), as `svc plugin pack` or a user's tar would make it. */
export async function tgzOf(folder: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stream = create(
    { gzip: true, cwd: path.dirname(folder), portable: true, filter: (p) => !p.split('/').includes('node_modules') },
    [path.basename(folder)],
  );
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A .zip of a plugin folder, files at the archive's root (as a zip tool run inside the folder makes it). */
export async function zipOf(folder: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full, `${prefix}${entry.name}/`);
      else zip.addBuffer(await readFile(full), `${prefix}${entry.name}`);
    }
  };
  await walk(folder, '');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A multipart/form-data body carrying `content` in field `field`, for Fastify's inject. */
export function multipart(content: Buffer, field = 'file', filename = 'plugin.tgz') {
  const boundary = `----svc${Math.random().toString(36).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A gzipped tar with the raw entries given (names are not checked: for archives that try to escape). */
export function rawTgz(
  entries: { name: string; content?: string; type?: '0' | '1' | '2' | '5'; linkname?: string }[],
): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.content ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100);
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${(entry.type === '0' || !entry.type ? data.length : 0).toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write('        ', 148);
    header.write(entry.type ?? '0', 156);
    if (entry.linkname) header.write(entry.linkname, 157, 100);
    header.write('ustar\0', 257);
    header.write('00', 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header);
    if (entry.type === '0' || !entry.type) {
      blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/**
 * People 1.1.0, made from the built people plugin: a new field (`spec.nickname`) and a new index on it. The new
 * entry widens the model its first version registers before delegating to it, so every other file is the same code.
 */
export async function peopleV2(peopleFolder: string, into: string): Promise<string> {
  const folder = path.join(into, 'people');
  await cp(peopleFolder, folder, { recursive: true, filter: (src) => !src.includes('node_modules') });
  const manifest = await readFile(path.join(folder, 'plugin.yaml'), 'utf8');
  await writeFile(path.join(folder, 'plugin.yaml'), manifest.replace(/version: 1\.0\.0/, 'version: 1.1.0'));
  await cp(path.join(folder, 'dist/index.js'), path.join(folder, 'dist/index-v1.js'));
  await writeFile(
    path.join(folder, 'dist/index.js'),
    [
      "import { personModel } from './person.js';",
      "personModel.schema.properties.spec.properties.nickname = { type: 'string', maxLength: 40 };",
      "personModel.indexes = [...personModel.indexes, { name: 'spec.nickname' }];",
      "export { default } from './index-v1.js';",
      '',
    ].join('\n'),
  );
  return folder;
}
