/**
 * `svc serve` as a user starts it: the built CLI in a child process, on a free port, HTTPS off, with the environment
 * given (`childEnv`: no setting but those). Resolves once it prints its listening line.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO, TEST_ADMIN } from './harness.js';

export const CLI = path.join(REPO, 'packages/server/dist/cli.js');

/**
 * The environment every child process of a test starts with: this one's without any `SVC_` variable (the shell that
 * runs the tests may export settings, which would change what the child does) nor vitest's own, then `overrides` (a
 * value of undefined removes that variable). A child gets exactly the settings its test gives it.
 */
export function childEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SVC_') && !name.startsWith('VITEST')) env[name] = value;
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** What it printed on standard output so far. */
  stdout(): string;
  /** Standard output and standard error so far. */
  output(): string;
  /** What it printed on standard error so far. */
  stderr(): string;
  /** SIGKILL, and waits until the process is gone. */
  kill(): Promise<void>;
}

/**
 * `command` is what runs before `serve`: the Node.js running the tests and the built CLI, unless a test says.
 * `detached` starts it in a process group of its own (whose id is its pid), for a test that kills the whole group;
 * `args` are flags given after `serve`; `prefix` is a command the whole runs through.
 */
export function spawnServe(
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  command: [string, string] = [process.execPath, CLI],
  { detached = false, args = [] as string[], prefix = [] as string[] } = {},
): Promise<ServeProcess> {
  const merged = childEnv({ SVC_PORT: '0', SVC_HTTPS_PORT: 'off', ...env });
  // `prefix` runs the command through another (`ip netns exec NAME`: the partition tests' network namespaces).
  const [program, ...rest] = [...prefix, command[0], command[1], 'serve', ...args];
  const child = spawn(program!, rest, {
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  let stdout = '';
  let output = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
    output += d;
  });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
    output += d;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc serve did not start:\n${output}`)), timeoutMs);
    child.stdout!.on('data', () => {
      const match = /svc listening on (http:\/\/\S+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        child,
        url: match[1]!,
        stdout: () => stdout,
        output: () => output,
        stderr: () => stderr,
        async kill() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`svc serve exited with ${code} before listening:\n${output}`));
    });
  });
}

/** Signs in to a served svc as the test administrator; returns the headers of every later request. */
export async function signInOver(url: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(TEST_ADMIN),
  });
  const cookies = response.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))!.slice('XSRF-TOKEN='.length);
  return { cookie: cookies.join('; '), 'x-xsrf-token': xsrf };
}

/** The machine's own Node.js when it is older than 22 (svc then hands itself over to the bundled one), else undefined. */
export function olderNode(node = '/usr/bin/node'): string | undefined {
  try {
    const major = Number(execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0]);
    return major < 22 ? node : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Waits (bounded: 3 s) until process `pid` has ended: gone, or a zombie (this machine's init may never reap an orphan;
 * a zombie holds no file, lock or port). Answers its state letter from /proc if it still runs then ('S', 'R', …).
 */
export async function processEnded(pid: number): Promise<string> {
  let state: string | undefined;
  for (let i = 0; i < 300; i++) {
    state = await readFile(`/proc/${pid}/stat`, 'utf8').then(
      (stat) => stat.replace(/^.*\) /s, '')[0],
      () => undefined,
    );
    if (state === undefined || state === 'Z') return 'ended';
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return state ?? 'ended';
}
