/**
 * The npm packages a hand-written (unbundled) plugin ships in its archive: those its package.json lists in
 * `dependencies` that its code imports, and their own production dependencies, as npm installed them under the
 * folder's node_modules. devDependencies are never packed, nor `@svc/plugin-api`, which the host provides.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { HOST_PROVIDED_MODULES } from './loader-hooks.js';
import { PackError } from './pack-error.js';

/** A package installed under the plugin folder: its name and folder (POSIX, relative to the plugin folder). */
export interface InstalledPackage {
  name: string;
  folder: string;
}

interface PackageManifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** The plugin's package.json dependency lists (empty without a package.json). */
export async function dependencyLists(root: string): Promise<{ production: Set<string>; dev: Set<string> }> {
  const manifest = await readManifest(root, '');
  return {
    production: new Set([
      ...Object.keys(manifest?.dependencies ?? {}),
      ...Object.keys(manifest?.optionalDependencies ?? {}),
    ]),
    dev: new Set(Object.keys(manifest?.devDependencies ?? {})),
  };
}

/** The folder `name` resolves to from the plugin's top (`node_modules/<name>`), when it is installed there. */
export async function topLevelPackage(root: string, name: string): Promise<InstalledPackage | undefined> {
  const folder = `node_modules/${name}`;
  return (await readManifest(root, folder)) ? { name, folder } : undefined;
}

/**
 * `roots` and every package they depend on in production, found as Node.js finds them: in the node_modules beside
 * the depending package, then in each node_modules above it, up to the plugin folder's own. A missing optional
 * dependency is skipped; a missing required one is an error (npm install was not run, or was run with --omit).
 */
export async function withProductionDependencies(root: string, roots: InstalledPackage[]): Promise<InstalledPackage[]> {
  const found = new Map<string, InstalledPackage>();
  const queue = [...roots];
  for (let next = queue.shift(); next; next = queue.shift()) {
    if (found.has(next.folder)) continue;
    found.set(next.folder, next);
    const manifest = (await readManifest(root, next.folder)) ?? {};
    const optional = new Set(Object.keys(manifest.optionalDependencies ?? {}));
    const wanted = new Set([...Object.keys(manifest.dependencies ?? {}), ...optional]);
    for (const name of wanted) {
      if (HOST_PROVIDED_MODULES.includes(name)) continue;
      const folder = await resolveFrom(root, next.folder, name);
      if (folder) queue.push({ name, folder });
      else if (!optional.has(name)) {
        throw new PackError(
          `${next.folder} depends on "${name}", which is not installed under node_modules: run npm install`,
        );
      }
    }
  }
  return [...found.values()].sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
}

async function resolveFrom(root: string, from: string, name: string): Promise<string | undefined> {
  let dir = from;
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (await readManifest(root, candidate)) return candidate;
    if (dir === '') return undefined;
    // Up one package: `node_modules/a/node_modules/b` → `node_modules/a` → '' (a scope folder is not a package).
    const at = dir.lastIndexOf('node_modules/');
    dir = at <= 0 ? '' : dir.slice(0, at - 1);
  }
}

async function readManifest(root: string, folder: string): Promise<PackageManifest | undefined> {
  const file = path.join(root, folder, 'package.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as PackageManifest;
  } catch (error) {
    throw new PackError(`${path.posix.join(folder, 'package.json')} cannot be read: ${(error as Error).message}`);
  }
}
