import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO } from './harness.js';
import { childEnv } from './serve-process.js';

/** The built `svc` command, as a user runs it. */
export const SVC_BIN = path.join(REPO, 'packages/server/bin/svc.js');

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `svc …` (bounded), optionally with standard input; the SVC_* variables of this process are not passed on. */
export function svc(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  return new Promise<CommandResult>((resolve) => {
    const child = execFile(
      process.execPath,
      [SVC_BIN, ...args],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024, env: childEnv(options.env) },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.input ?? '');
  });
}
