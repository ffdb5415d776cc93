/**
 * Files served as they are built (the console's `packages/console/dist`, a plugin UI's folder), read and gzipped once
 * on the first request for each, off the event loop. Only files found under the folder are served: a request names a
 * file by its path relative to it, and anything not in the listing (`..`, absolute paths) is not found.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

export interface StaticFile {
  type: string;
  bytes: Buffer;
  gzipped: Buffer;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** The media type of a file by its extension (application/octet-stream when unknown). */
export function contentTypeOf(name: string): string {
  return TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** Whether a file name is one of Vite's content-hashed assets (`assets/index-D9976rLN.js`): safe to cache forever. */
export function isHashedAsset(name: string): boolean {
  return /^assets\/[^/]+-[A-Za-z0-9_-]{8}\.[a-z0-9]+$/.test(name);
}

const gzipped = promisify(gzip);

export class StaticFiles {
  private listing: Promise<Set<string>> | undefined;
  private readonly files = new Map<string, Promise<StaticFile>>();

  constructor(private readonly dir: string) {}

  /** A file by its path relative to the folder, or undefined when there is no such file (or no such folder). */
  async get(name: string): Promise<StaticFile | undefined> {
    if (!(await this.list()).has(name)) return undefined;
    let made = this.files.get(name);
    if (!made) {
      made = readFile(path.join(this.dir, name)).then(async (bytes) => ({
        type: contentTypeOf(name),
        bytes,
        gzipped: await gzipped(bytes),
        etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
      }));
      // A failed read is not kept: the next request tries again.
      made.catch(() => this.files.delete(name));
      this.files.set(name, made);
    }
    return made;
  }

  private list(): Promise<Set<string>> {
    this.listing ??= readdir(this.dir, { recursive: true, withFileTypes: true })
      .then((entries) =>
        entries
          .filter((e) => e.isFile())
          .map((e) => path.relative(this.dir, path.join(e.parentPath, e.name)).split(path.sep).join('/')),
      )
      .then((names) => new Set(names))
      .catch(() => new Set<string>());
    return this.listing;
  }
}
