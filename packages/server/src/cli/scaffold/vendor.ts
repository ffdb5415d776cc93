/**
 * What a new plugin gets from the svc that made it, packed into the plugin's own folder (`vendor/<file>.tgz`, the
 * layout `npm pack` writes: every entry under `package/`): the plugin API it builds against, the svc command its
 * scripts run (`@svc/plugin-cli`, the bundle of scripts/bundle-plugin-cli.js), and the types of what the console
 * shares with its UI (`@svc/console-shared`, from scripts/console-shared-types.js). The plugin depends on them by relative
 * `file:` paths, so the folder can be moved, committed or copied to another machine and `npm install` still finds
 * them, with no registry and no global svc.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { create } from 'tar';

/** Where the tarball goes inside the plugin folder, e.g. `vendor/svc-plugin-api-0.1.0.tgz`. */
export function vendoredPluginApiPath(version: string): string {
  return `vendor/svc-plugin-api-${version}.tgz`;
}

/** The package name of the plugin author's svc command, as the scaffold's devDependencies name it. */
export const PLUGIN_CLI_PACKAGE = '@svc/plugin-cli';

/** Where the svc command's tarball goes inside the plugin folder, e.g. `vendor/svc-plugin-cli-0.1.0.tgz`. */
export function vendoredPluginCliPath(version: string): string {
  return `vendor/svc-plugin-cli-${version}.tgz`;
}

/** Where the console's shared types go inside the plugin folder, e.g. `vendor/svc-console-shared-0.1.0.tgz`. */
export function vendoredConsoleSharedPath(version: string): string {
  return `vendor/svc-console-shared-${version}.tgz`;
}

/** The same date npm pack gives every entry, so packing the same files twice gives the same bytes. */
const FIXED_MTIME = new Date('1985-10-26T08:15:00.000Z');

/** Packs a built package's package.json and its `files` (default `dist/`) from `apiFolder` into `target`. */
export async function packPackage(apiFolder: string, target: string): Promise<void> {
  const manifest = JSON.parse(readFileSync(path.join(apiFolder, 'package.json'), 'utf8')) as { files?: string[] };
  const files = ['package.json', ...(manifest.files ?? ['dist'])].sort();
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of create(
      { cwd: apiFolder, gzip: true, portable: true, prefix: 'package', mtime: FIXED_MTIME },
      files,
    )) {
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new Error(`${apiFolder} is not built (${(error as Error).message}): run npm run build in the svc repository`);
  }
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, Buffer.concat(chunks), { flag: 'wx' });
}
