/**
 * What a new plugin gets from the svc that made it, packed into the plugin's own folder (`vendor/<file>.tgz`, the
 * layout `npm pack` writes: every entry under `package/`): the plugin API it builds against, the svc command its
 * scripts run (`@svc/plugin-cli`, the bundle of scripts/bundle-plugin-cli.js), and the types of what the console
 * shares with its UI (`@svc/console-shared`, from scripts/console-shared-types.js). The plugin depends on them by relative
 * `file:` paths, so the folder can be moved, committed or copied to another machine and `npm install` still finds
 * them, with no registry and no global svc.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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

/**
 * The test harness and what it runs, for the scaffold's `src/plugin.test.ts`: `@svc/plugin-testing`, the server it
 * starts in the test's process (`svc-run`, its peer) and `@svc/client` (which both use), e.g.
 * `vendor/svc-plugin-testing-0.1.0.tgz`. The plugin's package.json pins `@svc/client` and `@svc/plugin-api` to the
 * vendored copies for every package that asks for them (npm `overrides`): they are not on the npm registry. The rest
 * of the server's dependencies come from the registry (or npm's cache) at `npm install`, better-sqlite3 among them
 * with the prebuilt binaries its package carries: nothing is compiled.
 */
export const HARNESS_PACKAGES = {
  pluginTesting: { name: '@svc/plugin-testing', file: 'svc-plugin-testing' },
  server: { name: 'svc-run', file: 'svc-run' },
  client: { name: '@svc/client', file: 'svc-client' },
} as const;

export function vendoredHarnessPath(pkg: keyof typeof HARNESS_PACKAGES, version: string): string {
  return `vendor/${HARNESS_PACKAGES[pkg].file}-${version}.tgz`;
}

/** The same date npm pack gives every entry, so packing the same files twice gives the same bytes. */
const FIXED_MTIME = new Date('1985-10-26T08:15:00.000Z');

export interface PackOptions {
  /** What the packed package.json says instead of the folder's (its `files` still chooses what is packed). */
  manifest?: (manifest: Record<string, unknown>) => Record<string, unknown>;
  /** What is packed instead of the manifest's `files` (default `dist/`), besides package.json. */
  files?: string[];
  /** Paths under the packed files left out (such as `dist/plugin-cli-package`). */
  leaveOut?: string[];
}

/** Packs a built package's package.json and its `files` (default `dist/`) from `apiFolder` into `target`. */
export async function packPackage(apiFolder: string, target: string, options: PackOptions = {}): Promise<void> {
  const manifest = JSON.parse(readFileSync(path.join(apiFolder, 'package.json'), 'utf8')) as Record<string, unknown>;
  const files = ['package.json', ...(options.files ?? (manifest.files as string[] | undefined) ?? ['dist'])].sort();
  const leaveOut = new Set(options.leaveOut ?? []);
  // An edited manifest is written in a folder of its own, beside links to the files it packs (tar follows them).
  const staging = options.manifest ? await mkdtemp(path.join(tmpdir(), 'svc-vendor-')) : undefined;
  const chunks: Buffer[] = [];
  try {
    if (staging && options.manifest) {
      await writeFile(path.join(staging, 'package.json'), `${JSON.stringify(options.manifest(manifest), null, 2)}\n`);
      for (const file of files.filter((f) => f !== 'package.json')) {
        await stat(path.join(apiFolder, file));
        await symlink(path.join(apiFolder, file), path.join(staging, file));
      }
    }
    for await (const chunk of create(
      {
        cwd: staging ?? apiFolder,
        follow: staging !== undefined,
        gzip: true,
        portable: true,
        prefix: 'package',
        mtime: FIXED_MTIME,
        filter: (file) => !leaveOut.has(file.replace(/^\.\//, '')),
      },
      files,
    )) {
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new Error(`${apiFolder} is not built (${(error as Error).message}): run npm run build in the svc repository`);
  } finally {
    if (staging) await rm(staging, { recursive: true, force: true });
  }
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, Buffer.concat(chunks), { flag: 'wx' });
}
