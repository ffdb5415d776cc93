import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ADMIN, login, userWithRoles } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';
import { KUBECTL } from './kubectl-harness.js';
import { CLI, childEnv } from './serve-process.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const run = (file: string, args: string[], env: Record<string, string>) =>
  new Promise<Run>((resolve) => {
    execFile(file, args, { timeout: 60_000, env: childEnv(env) }, (e, stdout, stderr) =>
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }),
    );
  });

/**
 * `svc kubeconfig` against a server whose HTTPS port is not the default, then the real kubectl's `auth can-i`,
 * `auth can-i --list` and `auth whoami` with the kubeconfigs it wrote (issue 30 item 5, "Done means").
 */
describe.each(BACKENDS)('kubectl auth with svc kubeconfig (%s)', (backend) => {
  let t: TestServer;
  let dir: string;
  let httpsPort: string;
  const svc = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [CLI, ...args], { HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), ...env });
  const kubectl = (kubeconfig: string, args: string[]) =>
    run(
      KUBECTL,
      ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache', path.basename(kubeconfig)), ...args],
      {
        HOME: dir,
        NO_COLOR: '1',
      },
    );
  /** `svc kubeconfig` for a user, from the server's HTTP URL: the kubeconfig's path. */
  const kubeconfigOf = async (username: string, password: string) => {
    const file = path.join(dir, `${username}.kubeconfig`);
    const out = await svc(
      ['kubeconfig', '--server', t.server.url!, '--data-dir', t.dataDir, '--username', username, '-o', file],
      { SVC_PASSWORD: password },
    );
    expect(out.stderr).toContain(`wrote ${file}`);
    expect(out.code).toBe(0);
    return file;
  };

  beforeAll(async () => {
    t = await startTestServer({ backend, env: { SVC_HTTPS_PORT: '0' } });
    await t.server.listen();
    httpsPort = new URL(t.server.httpsUrl!).port;
    dir = await mkdtemp(path.join(tmpdir(), 'svc-kubectl-auth-'));
    const admin = await login(t, ADMIN.username, ADMIN.password);
    await userWithRoles(t, admin, 'nemo', []);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the HTTPS URL of the server signed in to, on its own port', async () => {
    expect(httpsPort).not.toBe('8443');
    const file = await kubeconfigOf(ADMIN.username, ADMIN.password);
    const config = parse(await readFile(file, 'utf8'));
    expect(config.clusters[0].cluster.server).toBe(`https://127.0.0.1:${httpsPort}`);
    expect(config['current-context']).toBe('svc-127.0.0.1');
  });

  it('takes the server and the token `svc login` stored when no --server is given', async () => {
    const logged = await svc(['login', t.server.url!], { SVC_PASSWORD: ADMIN.password });
    expect(logged.code).toBe(0);
    const out = await svc(['kubeconfig', '--data-dir', t.dataDir], {});
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(parse(out.stdout).clusters[0].cluster.server).toBe(`https://127.0.0.1:${httpsPort}`);
  });

  it('trusts the CA `svc login` kept for an https:// server when the data dir has none', async () => {
    const caFile = path.join(t.dataDir, 'tls/ca.crt');
    const logged = await svc(['login', t.server.httpsUrl!, '--certificate-authority', caFile], {
      SVC_PASSWORD: ADMIN.password,
    });
    expect(logged.code).toBe(0);
    const out = await svc(['kubeconfig', '--data-dir', path.join(dir, 'no-such-dir')], {});
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const cluster = parse(out.stdout).clusters[0].cluster;
    expect(cluster.server).toBe(t.server.httpsUrl);
    expect(Buffer.from(cluster['certificate-authority-data'], 'base64').toString()).toBe(
      await readFile(caFile, 'utf8'),
    );
  });

  it('kubectl auth can-i answers yes for the administrator, and no (exit 1) for a user without a role', async () => {
    const admin = await kubeconfigOf(ADMIN.username, ADMIN.password);
    const yes = await kubectl(admin, ['auth', 'can-i', 'create', 'persons.people.svc.run']);
    expect(yes.stdout.trim()).toBe('yes');
    expect(yes.code).toBe(0);
    const nemo = await kubeconfigOf('nemo', 'nemo-password-123');
    const no = await kubectl(nemo, ['auth', 'can-i', 'create', 'persons.people.svc.run']);
    expect(no.stdout.trim()).toMatch(/^no\b/);
    expect(no.code).toBe(1);
    const own = await kubectl(nemo, ['auth', 'can-i', 'create', 'selfsubjectaccessreviews.authorization.k8s.io']);
    expect(own.stdout.trim()).toBe('yes');
  });

  it('kubectl auth whoami names the user; can-i --list shows their rules; --as is refused', async () => {
    const nemo = await kubeconfigOf('nemo', 'nemo-password-123');
    const whoami = await kubectl(nemo, ['auth', 'whoami', '-o', 'json']);
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout).status.userInfo.username).toBe('nemo');
    const list = await kubectl(nemo, ['auth', 'can-i', '--list', '--no-headers']);
    expect(list.code).toBe(0);
    const rows = list.stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    expect(rows).toContainEqual(['selfsubjectreviews.authentication.k8s.io', '[]', '[]', '[create]']);
    const admin = await kubeconfigOf(ADMIN.username, ADMIN.password);
    const as = await kubectl(admin, ['auth', 'can-i', 'get', 'persons.people.svc.run', '--as', 'nemo']);
    expect(as.code).toBe(1);
    expect(as.stderr).toContain('impersonation (the Impersonate-User header, kubectl --as) is not supported');
  });
});

describe('svc kubeconfig against a server without HTTPS', () => {
  let t: TestServer;
  let dir: string;
  beforeAll(async () => {
    t = await startTestServer({ backend: 'sqlite', env: { SVC_HTTPS_PORT: 'off' } });
    await t.server.listen();
    dir = await mkdtemp(path.join(tmpdir(), 'svc-kubeconfig-plain-'));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('says it serves no HTTPS instead of writing a URL kubectl cannot use', async () => {
    const ca = path.join(dir, 'ca.crt');
    await writeFile(ca, 'not used: the server is reached over HTTP\n');
    const out = await run(
      process.execPath,
      [CLI, 'kubeconfig', '--server', t.server.url!, '--certificate-authority', ca],
      { HOME: dir, XDG_CONFIG_HOME: dir, SVC_PASSWORD: ADMIN.password },
    );
    expect(out.stdout).toBe('');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`${t.server.url} serves no HTTPS (started with --https-port off?)`);
  });
});
