/**
 * What a plugin's code imports, read before packing: the entry and every local file it imports (statically, or by
 * `import('<literal>')`), walked through the files the archive will hold. A bare import must be a Node.js builtin,
 * a module the host provides, or a package that goes into the archive's node_modules; an archive importing anything
 * else would install and then fail with "Cannot find package", so pack refuses it instead.
 *
 * es-module-lexer reads the imports: it is what Vite uses for the same job, and lexes without building an AST.
 */
import { readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { init, parse } from 'es-module-lexer';
import { HOST_PROVIDED_MODULES } from './loader-hooks.js';
import { PackError } from './pack-error.js';

/** A bare import of a local file: `import ms from 'ms'` in dist/index.js is { file: 'dist/index.js', specifier: 'ms' }. */
export interface BareImport {
  file: string;
  specifier: string;
  /** The package it names: `lodash` for `lodash/fp`, `@scope/pkg` for `@scope/pkg/sub`. */
  packageName: string;
}

const SCRIPT = /\.(m?js)$/;

/**
 * The bare imports of the code reachable from `entry` (POSIX, relative to `root`), through the local files in
 * `files` only, host-provided modules and Node.js builtins aside.
 */
export async function bareImportsOf(root: string, entry: string, files: ReadonlySet<string>): Promise<BareImport[]> {
  await init;
  const found: BareImport[] = [];
  const seen = new Set<string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(path.join(root, file), 'utf8');
    let imports: ReturnType<typeof parse>[0];
    try {
      [imports] = parse(source, file);
    } catch (error) {
      throw new PackError(`${file} cannot be read as an ES module: ${(error as Error).message}`);
    }
    for (const { n: specifier } of imports) {
      // undefined: import.meta, or import() of a computed name, which no reading of the file can follow.
      if (specifier === undefined) continue;
      // An absolute path, or `#name`: the plugin's own package.json "imports", both inside the folder.
      if (specifier.startsWith('/') || specifier.startsWith('#')) continue;
      if (specifier.startsWith('./') || specifier.startsWith('../')) {
        const local = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier.split(/[?#]/)[0]!));
        if (files.has(local) && SCRIPT.test(local)) queue.push(local);
        continue;
      }
      if (isBuiltin(specifier) || HOST_PROVIDED_MODULES.includes(specifier) || /^[a-z][a-z0-9+.-]*:/i.test(specifier))
        continue;
      found.push({ file, specifier, packageName: packageNameOf(specifier) });
    }
  }
  return found;
}

function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
