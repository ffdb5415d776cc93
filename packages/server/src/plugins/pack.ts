/**
 * `svc plugin pack`: a plugin folder into `<name>-<version>.tgz`, the archive `POST …/plugins/install` and
 * SVC_PLUGINS_DIR accept. Every entry sits under one top folder `<name>/`; the archive holds no links, and packing
 * the same files twice gives the same bytes (portable headers, one fixed mtime, sorted entries).
 */

import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PluginManifest } from '@svc/plugin-api';
import semver from 'semver';
import { create } from 'tar';
import { readYamlDocument } from '../objects/untrusted-yaml.js';
import { HOST_VERSION } from '../version.js';
import { manifestProblems } from './manifest.js';
import {
  dependencyLists,
  type InstalledPackage,
  topLevelPackage,
  withProductionDependencies,
} from './pack-dependencies.js';
import { PackError } from './pack-error.js';
import { bareImportsOf } from './pack-imports.js';

export { PackError } from './pack-error.js';

export interface PackResult {
  /** Absolute path of the archive written. */
  file: string;
  name: string;
  version: string;
  /** Entries in the archive (folders and files). */
  entries: number;
  /** Things worth knowing that did not stop packing (the host version outside `spec.requires`, a missing `files` entry). */
  warnings: string[];
}

/** Every entry's mtime (the date npm pack uses too): packing twice must give identical bytes. */
const FIXED_MTIME = new Date('1985-10-26T08:15:00.000Z');
/** Never packed, whatever `files` says. */
const ALWAYS_LEFT_OUT = new Set(['node_modules', '.git']);
/** Packed with the `files` selection too, as npm does: the manifest, its objects and the package's papers. */
const ALWAYS_PACKED = [/^plugin\.yaml$/, /^package\.json$/, /^extensions\//, /^readme(\.|$)/i, /^licen[cs]e(\.|$)/i];

/** Packs `folder` into `<outDir>/<name>-<version>.tgz` (creating `outDir`). Throws a PackError naming what is wrong. */
export async function packPlugin(folder: string, outDir: string): Promise<PackResult> {
  const root = path.resolve(folder);
  const warnings: string[] = [];
  const manifest = await readPackManifest(root, warnings);
  const name = manifest.metadata.name;
  const { version, main } = manifest.spec;

  const mainInfo = await lstat(path.join(root, main)).catch(() => undefined);
  if (!mainInfo) throw new PackError(`spec.main ${main} does not exist in ${root}: run npm run build first`);
  if (mainInfo.isDirectory()) throw new PackError(`spec.main ${main} is a folder: it must name the ESM entry file`);

  const { files: all, links } = await listFiles(root);
  const files = await selectFiles(root, all, warnings);
  const link = files.find((file) => links.has(file));
  if (link !== undefined) {
    throw new PackError(`${link} is a symbolic link: plugin archives may not contain links (copy the file instead)`);
  }
  const mainPosix = toPosix(path.normalize(main));
  if (!files.includes(mainPosix)) {
    throw new PackError(
      `spec.main ${main} would not be in the archive: add it (or its folder) to "files" in package.json`,
    );
  }

  const packages = await packagesImported(root, mainPosix, files);
  const entries = withFolders([...files, ...(await packageFiles(root, packages))]);
  const chunks: Buffer[] = [];
  const stream = create(
    { gzip: true, cwd: root, prefix: name, portable: true, mtime: FIXED_MTIME, noDirRecurse: true },
    ['.', ...entries],
  );
  for await (const chunk of stream) chunks.push(chunk as Buffer);

  await mkdir(outDir, { recursive: true });
  const file = path.resolve(outDir, `${name}-${version}.tgz`);
  await writeFile(file, Buffer.concat(chunks));
  return { file, name, version, entries: entries.length + 1, warnings };
}

/** plugin.yaml, checked as install checks it, except that the host running the command need not be in range. */
async function readPackManifest(root: string, warnings: string[]): Promise<PluginManifest> {
  const where = path.join(root, 'plugin.yaml');
  let text: string;
  try {
    text = await readFile(where, 'utf8');
  } catch {
    throw new PackError(`${where} not found: a plugin folder needs plugin.yaml (svc plugin create makes one)`);
  }
  let raw: unknown;
  try {
    // As install reads it, so that what packs also installs.
    raw = await readYamlDocument(text, {});
  } catch (error) {
    throw new PackError(`${where} cannot be read as YAML: ${(error as Error).message}`);
  }
  // The archive is for whichever host installs it: check the range against a version inside it, and only warn
  // when the host running this command is outside.
  const requires = (raw as { spec?: { requires?: unknown } } | null)?.spec?.requires;
  const range = typeof requires === 'string' ? semver.validRange(requires) : null;
  const inRange = range ? (semver.minVersion(range)?.version ?? HOST_VERSION) : HOST_VERSION;
  const problems = manifestProblems(raw, inRange);
  if (problems.length > 0) throw new PackError(`${where}: ${problems.join('; ')}`);
  if (range && !semver.satisfies(HOST_VERSION, range, { includePrerelease: true })) {
    warnings.push(`spec.requires "${String(requires)}" does not include this host's version ${HOST_VERSION}`);
  }
  return raw as PluginManifest;
}

/**
 * Every file below `root` (POSIX paths relative to it), node_modules and .git aside, and every symbolic link (not
 * followed): a link is refused only if it would be packed.
 */
async function listFiles(root: string): Promise<{ files: string[]; links: Set<string> }> {
  const files: string[] = [];
  const links = new Set<string>();
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
      if (ALWAYS_LEFT_OUT.has(entry.name)) continue;
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isSymbolicLink()) {
        links.add(child);
        files.push(child);
      } else if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) files.push(child);
    }
  };
  await walk('');
  return { files: files.sort(byBytes), links };
}

/**
 * What goes in: with `files` in package.json, those entries (files, folders, or globs with `*`, `**`, `?`; `!` to
 * leave out) plus the ALWAYS_PACKED ones; without it, everything but archives (*.tgz, *.zip) and dot files.
 */
async function selectFiles(root: string, all: string[], warnings: string[]): Promise<string[]> {
  const declared = await declaredFiles(root);
  // As npm does: secrets and tool settings (.env, .npmrc, any dot file or folder) never go in by default.
  if (declared === undefined)
    return all.filter((file) => !/\.(tgz|zip)$/i.test(file) && !file.split('/').some((part) => part.startsWith('.')));
  const selected = new Set(all.filter((file) => ALWAYS_PACKED.some((pattern) => pattern.test(file))));
  for (const entry of declared) {
    const negated = entry.startsWith('!');
    const matcher = fileMatcher(negated ? entry.slice(1) : entry);
    const matches = all.filter(matcher);
    if (negated) for (const file of matches) selected.delete(file);
    else {
      if (matches.length === 0) warnings.push(`"files" entry ${JSON.stringify(entry)} in package.json matches nothing`);
      for (const file of matches) selected.add(file);
    }
  }
  return [...selected].sort(byBytes);
}

/**
 * The installed packages the code needs at run time (pack-dependencies.ts), after checking that every bare import of
 * the code is one the installed plugin will find: all that is wrong is said at once.
 */
async function packagesImported(root: string, main: string, files: string[]): Promise<InstalledPackage[]> {
  const imports = await bareImportsOf(root, main, new Set(files));
  const { production, dev } = await dependencyLists(root);
  const problems: string[] = [];
  const roots = new Map<string, InstalledPackage>();
  for (const { file, specifier, packageName } of imports) {
    const installed = production.has(packageName) ? await topLevelPackage(root, packageName) : undefined;
    if (installed) roots.set(packageName, installed);
    else if (dev.has(packageName))
      problems.push(
        `${file} imports "${specifier}", which is a devDependency: devDependencies are never packed (list it in "dependencies", or bundle it)`,
      );
    else
      problems.push(
        `${file} imports "${specifier}", which is neither bundled, nor in node_modules, nor provided by svc` +
          (production.has(packageName) ? ' (it is in "dependencies": run npm install)' : ''),
      );
  }
  if (problems.length > 0) throw new PackError([...new Set(problems)].join('\n'));
  return withProductionDependencies(root, [...roots.values()]);
}

/** Every file of the packages, their own nested node_modules aside (those are packages of their own, if needed). */
async function packageFiles(root: string, packages: InstalledPackage[]): Promise<string[]> {
  const files: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`;
      if (entry.isSymbolicLink())
        throw new PackError(
          `${child} is a symbolic link: plugin archives may not contain links (install the package with npm install --install-links)`,
        );
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') await walk(child);
      } else if (entry.isFile()) files.push(child);
    }
  };
  for (const { folder } of packages) {
    if ((await lstat(path.join(root, folder))).isSymbolicLink())
      throw new PackError(
        `${folder} is a symbolic link: plugin archives may not contain links (install the package with npm install --install-links)`,
      );
    await walk(folder);
  }
  return files;
}

async function declaredFiles(root: string): Promise<string[] | undefined> {
  let pkg: { files?: unknown };
  try {
    pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { files?: unknown };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new PackError(`package.json cannot be read: ${(error as Error).message}`);
  }
  if (pkg.files === undefined) return undefined;
  if (!Array.isArray(pkg.files) || !pkg.files.every((f) => typeof f === 'string')) {
    throw new PackError('"files" in package.json must be an array of strings');
  }
  return pkg.files as string[];
}

/** A `files` entry as a test of a file path: the path itself, everything below it, or a glob. */
function fileMatcher(entry: string): (file: string) => boolean {
  const clean = toPosix(path.posix.normalize(entry.replace(/^\.\//, ''))).replace(/\/+$/, '');
  if (!/[*?]/.test(clean)) return (file) => file === clean || file.startsWith(`${clean}/`);
  let source = '';
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i]!;
    if (c === '*' && clean[i + 1] === '*') {
      // `**/` is any number of folders; a trailing `**` anything below.
      source += clean[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += clean[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A glob naming a folder takes what is below it, as a plain folder entry does.
  const pattern = new RegExp(`^${source}(?:/.*)?$`);
  return (file) => pattern.test(file);
}

/** The files with every folder above them, folders first, in byte order. */
function withFolders(files: string[]): string[] {
  const all = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) all.add(parts.slice(0, i).join('/'));
    all.add(file);
  }
  return [...all].sort(byBytes);
}

function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
