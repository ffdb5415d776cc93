import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parse } from 'yaml';
import { loadTlsMaterial } from '../src/tls/certificates.js';
import { PERSONS, REPO, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { childEnv } from './serve-process.js';

const CLI = path.join(REPO, 'packages/server/dist/cli.js');

function get(url: string, ca: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    https
      .get(url, { ca, headers }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

function svc(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 20_000, env: childEnv(env) }, (e, stdout, stderr) =>
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('the HTTPS listener', () => {
  let t: TestServer;
  let ca: string;

  beforeAll(async () => {
    t = await startTestServer({ env: { SVC_HTTPS_PORT: '0', SVC_TLS_HOSTS: 'svc.example.test' } });
    await t.server.listen();
    ca = await readFile(t.server.caFile!, 'utf8');
  });
  afterAll(() => t.close());

  it('serves the same API over TLS with a certificate signed by the CA made under the data dir', async () => {
    expect(t.server.httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(t.server.caFile).toBe(path.join(t.dataDir, 'tls/ca.crt'));
    const version = await get(`${t.server.httpsUrl}/version`, ca);
    expect(version.status).toBe(200);
    expect(JSON.parse(version.body)).toMatchObject({ major: '1', minor: '33' });
    // Deny by default holds on this port too.
    expect((await get(`${t.server.httpsUrl}${PERSONS}`, ca)).status).toBe(401);
    const list = await get(`${t.server.httpsUrl}${PERSONS}`, ca, { cookie: t.adminHeaders.cookie! });
    expect(
      JSON.parse(list.body)
        .items.map((p: { metadata: { name: string } }) => p.metadata.name)
        .sort(),
    ).toEqual(['ada', 'alan', 'grace']);
  });

  it('names localhost, the loopback addresses and SVC_TLS_HOSTS in the certificate, and the CA may sign only it', async () => {
    const cert = new X509Certificate(await readFile(path.join(t.dataDir, 'tls/server.crt')));
    const authority = new X509Certificate(ca);
    expect(cert.checkIssued(authority)).toBe(true);
    expect(cert.verify(authority.publicKey)).toBe(true);
    expect(authority.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkHost('svc.example.test')).toBe('svc.example.test');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.checkHost('elsewhere.example')).toBeUndefined();
  });

  it('refuses a client that does not trust the CA', async () => {
    await expect(get(`${t.server.httpsUrl}/version`, '')).rejects.toThrow(/self-signed|unable to (get|verify)/i);
  });

  it('carries watches over wss', async () => {
    const socket = new WebSocket(`${t.server.httpsUrl!.replace('https', 'wss')}${PERSONS}?resourceVersion=0`, {
      ca,
      headers: { cookie: t.adminHeaders.cookie! },
    });
    const first = await new Promise<{ type: string; object: { metadata: { name: string } } }>((resolve, reject) => {
      socket.once('message', (data) => resolve(JSON.parse(String(data))));
      socket.once('error', reject);
    });
    socket.close();
    expect(first.type).toBe('ADDED');
  });

  it('keeps the CA across restarts, so kubeconfigs stay valid, until a host it does not permit is asked for', async () => {
    const again = await loadTlsMaterial({ dataDir: t.dataDir, hosts: ['svc.example.test'] });
    expect(again.caReplaced).toBe(false);
    expect(await readFile(again.caFile!, 'utf8')).toBe(ca);
    // A host the certificate does not name yet, among those the CA permits, gets a new certificate from the same CA.
    const fewer = await loadTlsMaterial({ dataDir: t.dataDir, hosts: [] });
    expect(await readFile(fewer.caFile!, 'utf8')).toBe(ca);
    // Another data directory, whose hosts change: the CA vouches for the names it was made for only, so a new host
    // gets a new CA (and a certificate from it), which clients must trust from then on.
    const other = await mkdtemp(path.join(tmpdir(), 'svc-tls-'));
    try {
      const first = await loadTlsMaterial({ dataDir: other, hosts: ['svc.example.test'] });
      const firstCa = await readFile(first.caFile!, 'utf8');
      const wider = await loadTlsMaterial({ dataDir: other, hosts: ['other.example.test'] });
      expect(wider.caReplaced).toBe(true);
      const widerCa = await readFile(wider.caFile!, 'utf8');
      expect(widerCa).not.toBe(firstCa);
      const cert = new X509Certificate(await readFile(path.join(other, 'tls/server.crt')));
      expect(cert.checkHost('other.example.test')).toBe('other.example.test');
      expect(cert.checkIssued(new X509Certificate(widerCa))).toBe(true);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('svc kubeconfig signs in, makes a token holding the caller’s roles and writes a kubeconfig that trusts the CA', async () => {
    const out = await svc(['kubeconfig', '--server', t.server.httpsUrl!, '--data-dir', t.dataDir], {
      SVC_PASSWORD: TEST_ADMIN.password,
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const config = parse(out.stdout);
    expect(config).toMatchObject({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'svc-127.0.0.1',
      clusters: [{ name: 'svc-127.0.0.1', cluster: { server: t.server.httpsUrl } }],
      users: [{ name: 'admin@svc-127.0.0.1' }],
    });
    expect(Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).toBe(ca);
    const token = config.users[0].user.token as string;
    expect(token).toMatch(/^pat_/);
    const list = await get(`${t.server.httpsUrl}${PERSONS}`, ca, { authorization: `Bearer ${token}` });
    expect(list.status).toBe(200);
    // The token is the administrator's own, with super-role and an expiry 90 days out.
    const tokens = await t.request('GET', '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens');
    const made = tokens.body.items.find(
      (o: { spec: { name: string } }) => o.spec.name === `kubeconfig 127.0.0.1:${new URL(t.server.httpsUrl!).port}`,
    );
    expect(made.spec.roles).toEqual(['super-role']);
    const days = (Date.parse(made.spec.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThan(90.1);
  });

  it('svc kubeconfig says what is wrong: a wrong password (1), not an HTTP URL or a missing CA (2), an unknown flag (2)', async () => {
    const wrong = await svc(['kubeconfig', '--server', t.server.httpsUrl!, '--data-dir', t.dataDir], {
      SVC_PASSWORD: 'not the password',
    });
    expect(wrong, wrong.stderr).toMatchObject({ code: 1, stdout: '' });
    expect(wrong.stderr).toContain('invalid username or password');
    const plain = await svc(['kubeconfig', '--server', 'ftp://127.0.0.1'], { SVC_PASSWORD: 'x' });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('--server must be an http:// or https:// URL');
    const noCa = await svc(['kubeconfig', '--server', t.server.httpsUrl!, '--data-dir', '/nonexistent'], {});
    expect(noCa.code).toBe(2);
    expect(noCa.stderr).toContain('no CA at /nonexistent/tls/ca.crt');
    const typo = await svc(['kubeconfig', '--sever', 'https://x'], {});
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown flag "--sever"; did you mean "--server"?');
    const help = await svc(['kubeconfig', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: svc kubeconfig/);
  });
});

describe('a certificate the user gives', () => {
  it('is served instead of a made one; a certificate without its key is refused at start', async () => {
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'svc-own-pair-'));
    const made = await loadTlsMaterial({ dataDir: elsewhere, hosts: [] });
    const certFile = path.join(elsewhere, 'tls/server.crt');
    const keyFile = path.join(elsewhere, 'tls/server.key');
    const ca = await readFile(made.caFile!, 'utf8');
    const t = await startTestServer({ env: { SVC_HTTPS_PORT: '0', SVC_TLS_CERT: certFile, SVC_TLS_KEY: keyFile } });
    try {
      await t.server.listen();
      expect(t.server.caFile).toBeUndefined();
      expect((await get(`${t.server.httpsUrl}/version`, ca)).status).toBe(200);
    } finally {
      await t.close();
    }
    const half = await startTestServer({ env: { SVC_HTTPS_PORT: '0', SVC_TLS_CERT: certFile } });
    try {
      await expect(half.server.listen()).rejects.toThrow('SVC_TLS_CERT and SVC_TLS_KEY go together: give both');
    } finally {
      await half.close();
      await rm(elsewhere, { recursive: true });
    }
  });
});
