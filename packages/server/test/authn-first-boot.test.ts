import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CREDENTIALS_RECORDS } from '@svc/plugin-api';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createServer, type Server } from '../src/main.js';
import { setCookies, signIn } from './authn-helpers.js';
import { capturingLogger, startTestServer, type TestServer } from './harness.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

async function start(env: Record<string, string>, logger = capturingLogger().logger): Promise<TestServer> {
  const t = await startTestServer({ env, pluginsDirs: [], logger, credentials: 'none' });
  open.push(t);
  return t;
}

describe('the super administrator on first boot', () => {
  it('is created from SVC_ADMIN_USERNAME and SVC_ADMIN_PASSWORD and bound to super-role', async () => {
    const t = await start({ SVC_ADMIN_USERNAME: 'root', SVC_ADMIN_PASSWORD: 'a given password' });
    await signIn(t, 'root', 'a given password');
    const { server } = t;
    const user = await server.objects.get(server.registry.findByKind('v1alpha1', 'User')!, 'root');
    expect(user.spec).toEqual({ displayName: 'Super administrator' });
    expect(JSON.stringify(user)).not.toMatch(/scrypt|password/i);
    const binding = await server.objects.get(server.registry.findByKind('v1alpha1', 'RoleBinding')!, 'root-super-role');
    expect(binding).toMatchObject({
      roleRef: { apiGroup: '', kind: 'Role', name: 'super-role' },
      subjects: [{ apiGroup: '', kind: 'User', name: 'root' }],
    });
  });

  it('is not created without SVC_ADMIN_PASSWORD: no password is generated, printed or logged', async () => {
    const printed: string[] = [];
    const log = capturingLogger();
    // An empty SVC_ADMIN_PASSWORD counts as unset (the harness otherwise gives one).
    const t = await startTestServer({
      env: { SVC_ADMIN_PASSWORD: '' },
      pluginsDirs: [],
      logger: log.logger,
      credentials: 'none',
      serverOptions: { announce: (text) => void printed.push(text) },
    });
    open.push(t);
    expect(t.server.authn.users.size).toBe(0);
    expect(printed).toEqual([]);
    expect(JSON.stringify(log.lines())).not.toMatch(/password/i);
    // The first-run setup creates the administrator instead (first-run-setup.test.ts).
    expect(t.server.authn.setup.pending).toBe(true);
    const login = await t.request('POST', '/login', { username: 'admin', password: 'admin' });
    expect(login.status).toBe(401);
  });

  it('is not created again when users exist (a restart keeps the first password)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-authn-'));
    const boot = async (password: string) => {
      const server = await createServer(
        loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_ADMIN_PASSWORD: password }),
        {
          logger: capturingLogger().logger,
        },
      );
      return server;
    };
    let server: Server = await boot('first password');
    await server.close();
    server = await boot('second password');
    open.push({
      close: async () => {
        await server.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    });
    const login = (password: string) =>
      server.app.inject({ method: 'POST', url: '/login', payload: { username: 'admin', password } });
    expect((await login('second password')).statusCode).toBe(401);
    expect((await login('first password')).statusCode).toBe(200);
  });

  it('refuses to start with an invalid username or a short password', async () => {
    await expect(start({ SVC_ADMIN_USERNAME: 'Not Valid', SVC_ADMIN_PASSWORD: 'long enough' })).rejects.toThrow(
      /SVC_ADMIN_USERNAME/,
    );
    await expect(start({ SVC_ADMIN_PASSWORD: 'short' })).rejects.toThrow(/SVC_ADMIN_PASSWORD must be at least 8/);
  });
});

describe('sessions survive a restart', () => {
  it('accepts the session cookie after the server restarts on the same data directory', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-authn-'));
    const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_ADMIN_PASSWORD: 'restart password' });
    let server = await createServer(config, { logger: capturingLogger().logger });
    const login = await server.app.inject({
      method: 'POST',
      url: '/login',
      payload: { username: 'admin', password: 'restart password' },
    });
    const cookies = setCookies({ status: 200, headers: login.headers, body: undefined, text: '' });
    const cookie = `SVC_SESSION=${cookies.SVC_SESSION}; XSRF-TOKEN=${cookies['XSRF-TOKEN']}`;
    // A server given no test cost hashes at OWASP's scrypt figure (N=2^15, r=8, p=3), recorded in the hash.
    const stored = await server.store.secrets.get(CREDENTIALS_RECORDS, 'admin');
    expect(JSON.parse(stored!.toString('utf8')).passwordHash).toMatch(/^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
    await server.close();

    server = await createServer(config, { logger: capturingLogger().logger });
    open.push({
      close: async () => {
        await server.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    });
    const request = { method: 'GET', url: '/api/v1alpha1/users', ip: '127.0.0.1', headers: { cookie } } as never;
    await expect(server.authn.authenticator.authenticate(request)).resolves.toMatchObject({
      username: 'admin',
      via: 'session',
    });
    const tokens = await server.app.inject({
      method: 'POST',
      url: '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens',
      headers: { cookie, 'x-xsrf-token': cookies['XSRF-TOKEN']! },
      payload: { spec: { name: 'after restart', roles: [] } },
    });
    expect(tokens.statusCode).toBe(201);
  });
});
