import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setupLinkBase } from '../src/authn/first-run.js';
import { setCookies } from './authn-helpers.js';
import { BACKENDS, capturingLogger, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';

const SETUP = '/apis/api.console.svc.run/v1alpha1/setup';
const ME = '/apis/api.console.svc.run/v1alpha1/users/-/permissions';

const open: TestServer[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

/** A server on an empty store started without SVC_ADMIN_PASSWORD (the harness gives one otherwise). */
async function startEmpty(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer({
    pluginsDirs: [],
    credentials: 'none',
    ...options,
    env: { SVC_ADMIN_PASSWORD: '', ...options.env },
  });
  open.push(t);
  return t;
}

/** The token of this process's setup link, as the link carries it (the fragment after `#token=`). */
function tokenOf(t: TestServer): string {
  const link = t.server.authn.setup.link('http://svc.test');
  if (!link) throw new Error('no setup link: setup is not pending');
  return new URL(link).hash.slice('#token='.length);
}

describe.each(BACKENDS)('the first-run setup (%s)', (backend) => {
  it('says whether setup is pending, to anyone, and nothing else', async () => {
    const t = await startEmpty({ backend });
    const pending = await t.anonymous('GET', SETUP);
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({ pending: true, localSignIn: true });

    const configured = await startTestServer({ backend, pluginsDirs: [] });
    open.push(configured);
    expect((await configured.anonymous('GET', SETUP)).body).toEqual({ pending: false, localSignIn: true });
    expect(configured.server.authn.setup.link('http://svc.test')).toBeUndefined();
  });

  it('creates the super administrator once with the link’s token and signs them in', async () => {
    const t = await startEmpty({ backend });
    const token = tokenOf(t);
    const made = await t.anonymous('POST', SETUP, { token, username: 'root', password: 'a setup password' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ username: 'root' });
    expect(made.headers['cache-control']).toBe('no-store');

    // The answer's cookies are a session: the new administrator holds super-role.
    const cookies = setCookies(made);
    const me = await t.anonymous('GET', ME, undefined, {
      cookie: `SVC_SESSION=${cookies.SVC_SESSION}; XSRF-TOKEN=${cookies['XSRF-TOKEN']}`,
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'root', roles: ['super-role'], uiPermissions: ['*'] });

    // Made as ensureSuperAdministrator makes it: the same User object and binding, and the password signs in.
    const { server } = t;
    const user = await server.objects.get(server.registry.findByKind('v1alpha1', 'User')!, 'root');
    expect(user.spec).toEqual({ displayName: 'Super administrator' });
    const binding = await server.objects.get(server.registry.findByKind('v1alpha1', 'RoleBinding')!, 'root-super-role');
    expect(binding).toMatchObject({
      roleRef: { apiGroup: '', kind: 'Role', name: 'super-role' },
      subjects: [{ apiGroup: '', kind: 'User', name: 'root' }],
    });
    expect((await t.anonymous('POST', '/login', { username: 'root', password: 'a setup password' })).status).toBe(200);

    // Once only: the same token, or any, is now refused, and setup is no longer pending.
    const again = await t.anonymous('POST', SETUP, { token, username: 'other', password: 'another password' });
    expect(again.status).toBe(409);
    expect(again.headers['content-type']).toContain('application/problem+json');
    expect(again.body.detail).toBe('setup is done: the super administrator exists; sign in instead');
    expect((await t.anonymous('GET', SETUP)).body).toEqual({ pending: false, localSignIn: true });
    expect(t.server.authn.users.exists('other')).toBe(false);
    expect(t.server.authn.setup.link('http://svc.test')).toBeUndefined();
  });

  it('refuses a wrong token with 403, and creates nobody', async () => {
    const t = await startEmpty({ backend });
    const token = tokenOf(t);
    for (const wrong of [`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, 'short', token + token]) {
      const refused = await t.anonymous('POST', SETUP, {
        token: wrong,
        username: 'root',
        password: 'a setup password',
      });
      expect(refused.status).toBe(403);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.body.detail).toBe('this setup link is not valid');
    }
    expect(t.server.authn.users.size).toBe(0);
    expect((await t.anonymous('GET', SETUP)).body).toEqual({ pending: true, localSignIn: true });
  });

  it('names the fields that are wrong, and keeps the token usable after a mistake', async () => {
    const t = await startEmpty({ backend });
    const token = tokenOf(t);
    const weak = await t.anonymous('POST', SETUP, { token, username: 'root', password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors).toEqual([{ path: '/password', message: 'must be at least 8 characters long' }]);

    const both = await t.anonymous('POST', SETUP, { username: 'Not Valid' });
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([
      { path: '/token', message: 'is required' },
      { path: '/username', message: "must contain only lowercase letters, digits and '-'" },
      { path: '/password', message: 'is required' },
    ]);
    expect(t.server.authn.users.size).toBe(0);

    const made = await t.anonymous('POST', SETUP, { token, username: 'root', password: 'a setup password' });
    expect(made.status).toBe(201);
  });

  it('creates exactly one administrator when many complete it at once', async () => {
    const t = await startEmpty({ backend });
    const token = tokenOf(t);
    const names = ['ada', 'grace', 'linus', 'barbara', 'ken'];
    const answers = await Promise.all(
      names.map((username) => t.anonymous('POST', SETUP, { token, username, password: 'a setup password' })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    const winner = answers.find((a) => a.status === 201)!.body.username as string;
    const users = await t.anonymous('POST', '/login', { username: winner, password: 'a setup password' });
    expect(users.status).toBe(200);
    expect(t.server.authn.users.size).toBe(1);
    const bindings = await t.server.objects.list(t.server.registry.findByKind('v1alpha1', 'RoleBinding')!, {
      labels: [],
      fields: [],
      sort: [],
    });
    const superBindings = bindings.items
      .map((b) => JSON.parse(b.toString('utf8')))
      .filter((b) => b.roleRef.name === 'super-role');
    expect(superBindings.map((b) => b.metadata.name)).toEqual([`${winner}-super-role`]);
  });

  it('refuses a cross-site request', async () => {
    const t = await startEmpty({ backend });
    const refused = await t.anonymous(
      'POST',
      SETUP,
      { token: tokenOf(t), username: 'root', password: 'a setup password' },
      { origin: 'https://evil.example', host: 'localhost' },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("setup requests must come from this server's own origin");
    expect(t.server.authn.users.size).toBe(0);
  });
});

describe('the setup link', () => {
  it('expires after 24 hours', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const t = await startEmpty({ serverOptions: { setupClock: () => now } });
    const token = tokenOf(t);
    now += 24 * 3600_000;
    const expired = await t.anonymous('POST', SETUP, { token, username: 'root', password: 'a setup password' });
    expect(expired.status).toBe(403);
    expect(expired.body.detail).toBe('this setup link has expired: restart svc, which prints a fresh one');
    expect(t.server.authn.users.size).toBe(0);
  });

  it('is printed on standard error in a framed block when listening, never on standard output nor logged', async () => {
    const log = capturingLogger();
    const first = await startEmpty({ logger: log.logger });
    const toStderr: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      toStderr.push(String(chunk));
      return true;
    });
    const stdout = vi.spyOn(process.stdout, 'write');
    let url: string;
    try {
      url = await first.server.listen();
    } finally {
      stderr.mockRestore();
      stdout.mockRestore();
    }
    const token = tokenOf(first);
    const link = `${url}/console/setup#token=${token}`;
    expect(first.server.setupUrl).toBe(link);
    const frame = '='.repeat(101);
    expect(toStderr).toEqual([
      `\n${frame}\nsvc setup: ${link}\n` +
        '  Open it to create the super administrator. It works once, until svc restarts, for 24 hours at most;\n' +
        '  whoever opens it first becomes the administrator, so keep it to yourself.\n' +
        `${frame}\n\n`,
    ]);
    expect(JSON.stringify(stdout.mock.calls)).not.toContain(token);
    expect(JSON.stringify(log.lines())).not.toContain(token);
  });

  it('a restart prints a fresh one, and the old token no longer works', async () => {
    const printed: string[] = [];
    const announce = (text: string) => void printed.push(text);
    const first = await startEmpty({ serverOptions: { announce } });
    await first.server.listen();
    expect(printed).toHaveLength(1);
    expect(/^svc setup: (\S+)$/m.exec(printed[0]!)?.[1]).toBe(first.server.setupUrl);
    const oldToken = tokenOf(first);
    await first.server.close();
    open.splice(open.indexOf(first), 1);

    // The same empty store, restarted: a new link, and the old token no longer works.
    const again = await startEmpty({ env: { SVC_DATA_DIR: first.dataDir }, serverOptions: { announce } });
    await again.server.listen();
    expect(printed).toHaveLength(2);
    expect(printed[1]).not.toBe(printed[0]);
    const stale = await again.anonymous('POST', SETUP, {
      token: oldToken,
      username: 'root',
      password: 'a setup password',
    });
    expect(stale.status).toBe(403);
    await rm(first.dataDir, { recursive: true, force: true });
  });

  it('is not printed when SVC_ADMIN_PASSWORD made the administrator', async () => {
    const printed: string[] = [];
    const t = await startTestServer({
      pluginsDirs: [],
      serverOptions: { announce: (text) => void printed.push(text) },
    });
    open.push(t);
    await t.server.listen();
    expect(printed).toEqual([]);
    expect(t.server.setupUrl).toBeUndefined();
    expect((await t.anonymous('POST', '/login', TEST_ADMIN)).status).toBe(200);
  });
});

describe('where the setup link points', () => {
  it('is plain HTTP on this machine for a loopback or wildcard address, else HTTPS when it is on', () => {
    expect(setupLinkBase('127.0.0.1', 'http://127.0.0.1:8090', 'https://127.0.0.1:8443')).toBe('http://127.0.0.1:8090');
    expect(setupLinkBase('0.0.0.0', 'http://0.0.0.0:8090', 'https://0.0.0.0:8443')).toBe('http://127.0.0.1:8090');
    expect(setupLinkBase('::', 'http://[::]:8090', undefined)).toBe('http://[::1]:8090');
    expect(setupLinkBase('10.0.0.5', 'http://10.0.0.5:8090', 'https://10.0.0.5:8443')).toBe('https://10.0.0.5:8443');
    expect(setupLinkBase('10.0.0.5', 'http://10.0.0.5:8090', undefined)).toBe('http://10.0.0.5:8090');
  });
});
