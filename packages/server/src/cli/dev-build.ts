/**
 * The dev loop's build of a TypeScript plugin: each source of `rootDir` (tsconfig.json; default src/) written to
 * `outDir` (default dist/) with its types stripped by Node.js itself, in milliseconds and with no tool to install.
 * It checks no types (`npm run build`, with tsc, does); a plugin whose build needs more (bundling) names its own
 * `build:server` script, which the loop runs instead.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CommandError } from './online/report.js';

type Strip = (code: string, options: { mode: 'transform'; sourceUrl?: string }) => string;

/** Builds `folder`; answers how many files it wrote. */
export async function stripTypesBuild(folder: string): Promise<number> {
  const strip = await stripper();
  const { rootDir, outDir } = await layoutOf(folder);
  const sources = (await readdir(rootDir, { recursive: true })).filter(
    (file) => /\.m?ts$/.test(file) && !/\.d\.m?ts$|\.test\.m?ts$/.test(file),
  );
  for (const file of sources) {
    const code = await readFile(path.join(rootDir, file), 'utf8');
    let js: string;
    try {
      js = strip(code, { mode: 'transform', sourceUrl: file });
    } catch (error) {
      throw new CommandError(`${path.join(path.relative(folder, rootDir), file)}: ${(error as Error).message}`);
    }
    const target = path.join(outDir, file.replace(/\.(m?)ts$/, '.$1js'));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, js);
  }
  return sources.length;
}

async function stripper(): Promise<Strip> {
  const module = (await import('node:module')) as { stripTypeScriptTypes?: Strip };
  if (!module.stripTypeScriptTypes) {
    throw new CommandError(
      `this Node.js (${process.version}) cannot strip TypeScript types: use Node.js 22.13 or later, or give --build`,
    );
  }
  // Node.js calls the feature experimental and says so once; the loop's output is for the author's own messages.
  const emit = process.emitWarning;
  process.emitWarning = (() => {}) as typeof process.emitWarning;
  return (code, options) => {
    try {
      return module.stripTypeScriptTypes!(code, options);
    } finally {
      process.emitWarning = emit;
    }
  };
}

/** Where the sources are and where the build goes, from tsconfig.json's compilerOptions (src/ and dist/ without). */
async function layoutOf(folder: string): Promise<{ rootDir: string; outDir: string }> {
  let options: { rootDir?: string; outDir?: string } = {};
  try {
    options = JSON.parse(await readFile(path.join(folder, 'tsconfig.json'), 'utf8')).compilerOptions ?? {};
  } catch {
    // No tsconfig.json, or one with comments: the scaffold's layout.
  }
  return {
    rootDir: path.resolve(folder, options.rootDir ?? 'src'),
    outDir: path.resolve(folder, options.outDir ?? 'dist'),
  };
}
