/** `svc plugin create <name>`: a plugin folder that builds, tests and runs as it is. */

import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { RESERVED_PLUGIN_NAMES } from '../objects/domains.js';
import { nameProblems } from '../objects/names.js';
import { HOST_VERSION } from '../version.js';
import { displayNameOf, type ScaffoldOptions, scaffoldFiles } from './scaffold/index.js';
import {
  packPackage,
  vendoredConsoleSharedPath,
  vendoredHarnessPath,
  vendoredPluginApiPath,
  vendoredPluginCliPath,
} from './scaffold/vendor.js';

/** A mistake in what the user asked for: the command exits with code 2. */
export class UsageError extends Error {
  /** `showUsage`: the command line itself was wrong, so the usage lines help. */
  constructor(
    message: string,
    readonly showUsage = false,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** packages/server, from src/cli or dist/cli alike. */
const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What the scaffold's devDependencies fall back to when the host's repository package.json is not at hand. */
const FALLBACK_RANGES = {
  typescript: '~5.9.3',
  vitest: '^4.0.0',
  esbuild: '^0.28.2',
  vueTsc: '^3.3.14',
  vueI18n: '^11.4.18',
};
/** The plugin author's svc command, bundled by scripts/bundle-plugin-cli.js (npm run build). */
const PLUGIN_CLI_FOLDER = path.join(SERVER_ROOT, 'dist', 'plugin-cli-package');
/** The types of the console's shared modules, bundled by scripts/console-shared-types.js (npm run build). */
const CONSOLE_SHARED_TYPES_FOLDER = path.join(SERVER_ROOT, 'dist', 'console-shared-types');
/** The plugin name is the first label of `<name>.svc.run` and prefixes label keys: a DNS label. */
const MAX_PLUGIN_NAME_LENGTH = 63;

/** Messages for a plugin name (empty when it is fine), in the words of the manifest check. */
export function pluginNameProblems(name: string): string[] {
  const problems = nameProblems(name, MAX_PLUGIN_NAME_LENGTH);
  if (RESERVED_PLUGIN_NAMES.includes(name))
    problems.push(`is reserved for the service (reserved: ${RESERVED_PLUGIN_NAMES.join(', ')})`);
  return problems;
}

export interface Created {
  folder: string;
  files: string[];
}

/** Writes the scaffold into `<parent>/<name>`; throws a UsageError for a bad name or a non-empty target. */
export async function createPlugin(name: string, parent: string): Promise<Created> {
  const problems = pluginNameProblems(name);
  if (problems.length > 0) {
    throw new UsageError(
      `"${name}" cannot be a plugin name: it ${problems.join('; ')}. A plugin name is a lowercase DNS label ` +
        `(letters, digits and '-', at most ${MAX_PLUGIN_NAME_LENGTH} characters), for example "hello" or "my-notes".`,
    );
  }
  const folder = path.resolve(parent, name);
  const existing = await stat(folder).catch(() => undefined);
  if (existing && !existing.isDirectory()) throw new UsageError(`${folder} already exists and is not a folder`);
  if (existing && (await readdir(folder)).length > 0) {
    throw new UsageError(
      `${folder} already exists and is not empty: choose another name, or another parent with --dir`,
    );
  }
  const options = scaffoldOptions(name);
  const files = scaffoldFiles(options);
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(folder, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content, { flag: 'wx' });
  }
  await packPackage(pluginApiFolder(), path.join(folder, options.pluginApiTarball));
  await packPackage(PLUGIN_CLI_FOLDER, path.join(folder, options.pluginCliTarball));
  await packPackage(CONSOLE_SHARED_TYPES_FOLDER, path.join(folder, options.consoleSharedTarball));
  await packHarness(folder, options);
  const vendored = [
    options.pluginApiTarball,
    options.pluginCliTarball,
    options.consoleSharedTarball,
    options.harness.pluginTesting,
    options.harness.server,
    options.harness.client,
  ];
  return { folder, files: [...Object.keys(files), ...vendored] };
}

export function scaffoldOptions(name: string): ScaffoldOptions {
  const host = semver.parse(HOST_VERSION);
  return {
    name,
    displayName: displayNameOf(name),
    requires: host ? `>=${host.major}.${host.minor}.0` : `>=${HOST_VERSION}`,
    pluginApiTarball: vendoredPluginApiPath(pluginApiVersion()),
    pluginCliTarball: vendoredPluginCliPath(HOST_VERSION),
    consoleSharedTarball: vendoredConsoleSharedPath(HOST_VERSION),
    harness: {
      pluginTesting: vendoredHarnessPath('pluginTesting', versionOf(harnessFolder())),
      server: vendoredHarnessPath('server', HOST_VERSION),
      client: vendoredHarnessPath('client', versionOf(packageFolder('@svc/client'))),
    },
    ...repositoryRanges(),
  };
}

function pluginApiVersion(): string {
  return versionOf(pluginApiFolder());
}

function versionOf(folder: string): string {
  return (JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The folder of the @svc/plugin-api this host runs with (symbolic links resolved). */
function pluginApiFolder(): string {
  return packageFolder('@svc/plugin-api');
}

/** The folder of a package this host runs with (symbolic links resolved). */
function packageFolder(name: string): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) {
      return dir;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of ${name}`);
    dir = up;
  }
}

/** The test harness: the repository's packages/plugin-testing, or the copy a release's svc-run carries. */
function harnessFolder(): string {
  const inRelease = path.join(SERVER_ROOT, 'plugin-testing');
  return existsSync(path.join(inRelease, 'package.json')) ? inRelease : path.join(SERVER_ROOT, '..', 'plugin-testing');
}

/**
 * Vendors the test harness, the server it runs and the client (see HARNESS_PACKAGES in scaffold/vendor.ts). Chosen
 * over finding "the svc that made the plugin" at test time: the folder then tests the same on another machine, in
 * CI, with no svc installed, and a newer svc elsewhere does not change what the tests run against. The price is the
 * server's npm dependencies in the plugin's node_modules (measured in docs/plugins.md "Test").
 */
async function packHarness(folder: string, options: ScaffoldOptions): Promise<void> {
  // Only what runs: no bin (the plugin's svc command is @svc/plugin-cli's), no development fields.
  const runtimeOnly = (manifest: Record<string, unknown>) => {
    const { bin: _bin, scripts: _s, devDependencies: _d, bundleDependencies: _b, files: _f, ...rest } = manifest;
    return { ...rest, files: ['dist'] };
  };
  await packPackage(harnessFolder(), path.join(folder, options.harness.pluginTesting), { manifest: runtimeOnly });
  await packPackage(SERVER_ROOT, path.join(folder, options.harness.server), {
    manifest: runtimeOnly,
    files: ['dist'],
    // What `svc plugin create` itself vendors: a server run by tests needs neither.
    leaveOut: ['dist/plugin-cli-package', 'dist/console-shared-types'],
  });
  await packPackage(packageFolder('@svc/client'), path.join(folder, options.harness.client), {
    manifest: runtimeOnly,
  });
}

/** The build tools' ranges as the host repository pins them (root and console): a scaffold builds like the host. */
function repositoryRanges(): Pick<
  ScaffoldOptions,
  'typescriptRange' | 'vitestRange' | 'esbuildRange' | 'vueTscRange' | 'vueI18nRange'
> {
  // Outside the repository (an installed host) these files are absent: the ranges it was released with.
  const ranges = (file: string, field: 'dependencies' | 'devDependencies'): Record<string, string> => {
    try {
      return (JSON.parse(readFileSync(path.join(SERVER_ROOT, '..', file), 'utf8'))[field] ?? {}) as Record<
        string,
        string
      >;
    } catch {
      return {};
    }
  };
  const root = ranges('../package.json', 'devDependencies');
  const consoleDev = ranges('console/package.json', 'devDependencies');
  const shared = ranges('console-shared/package.json', 'dependencies');
  return {
    typescriptRange: root.typescript ?? FALLBACK_RANGES.typescript,
    vitestRange: root.vitest ?? FALLBACK_RANGES.vitest,
    esbuildRange: root.esbuild ?? FALLBACK_RANGES.esbuild,
    vueTscRange: consoleDev['vue-tsc'] ?? FALLBACK_RANGES.vueTsc,
    vueI18nRange: shared['vue-i18n'] ?? FALLBACK_RANGES.vueI18n,
  };
}
