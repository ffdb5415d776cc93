import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { kubeconfigYaml } from '../src/cli/online/kubeconfig.js';
import { type Backend, startTestServer, superAdminToken, type TestServer } from './harness.js';
import { childEnv } from './serve-process.js';

export const KUBECTL = process.env.SVC_TEST_KUBECTL ?? '/usr/bin/kubectl';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlServer {
  t: TestServer;
  /** Runs kubectl against the server (over HTTPS, with a fresh cache dir per server) and answers what it printed. */
  kubectl(args: string[], stdin?: string): Promise<KubectlResult>;
  /** Starts a long-running kubectl (get -w); `lines` fills as it prints. */
  spawnKubectl(args: string[]): { lines: string[]; stop(): void };
  /** A file holding `text`, for `-f`. */
  file(name: string, text: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * A real svc with its HTTPS listener on, and a kubeconfig holding its CA and an administrator's personal access
 * token, as `svc kubeconfig` writes it. kubectl is the installed one (a dispatcher picking its version from
 * `/version`); each server gets a fresh `--cache-dir`, so discovery is never stale between tests.
 */
export async function startKubectlServer(backend: Backend): Promise<KubectlServer> {
  const t = await startTestServer({ backend, env: { SVC_HTTPS_PORT: '0' } });
  await t.server.listen();
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-kubectl-'));
  const token = await superAdminToken(t, 'kubectl tests');
  const kubeconfig = path.join(dir, 'kubeconfig');
  const ca = await readFile(t.server.caFile!, 'utf8');
  await writeFile(kubeconfig, kubeconfigYaml({ server: t.server.httpsUrl!, ca, token, user: 'admin', context: 'svc' }));
  const base = ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache')];
  const env = childEnv({ HOME: dir, KUBECONFIG: kubeconfig, NO_COLOR: '1' });
  return {
    t,
    kubectl: (args, stdin) =>
      new Promise((resolve) => {
        const child = execFile(KUBECTL, [...base, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
        );
        child.stdin?.end(stdin);
      }),
    spawnKubectl(args) {
      const child = spawn(KUBECTL, [...base, ...args], { env });
      const lines: string[] = [];
      let partial = '';
      child.stdout.on('data', (chunk: Buffer) => {
        const text = partial + chunk.toString('utf8');
        const parts = text.split('\n');
        partial = parts.pop() ?? '';
        lines.push(...parts);
      });
      return { lines, stop: () => void child.kill() };
    },
    async file(name, text) {
      const file = path.join(dir, name);
      await writeFile(file, text);
      return file;
    },
    async close() {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
