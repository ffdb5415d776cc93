import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, userWithRoles } from './auth-harness.js';
import { PG_URL, startTestServer, type TestServer } from './harness.js';
import { svc } from './offline-cli.js';

const OWN_PERMISSIONS = `${CONSOLE}/users/-/permissions`;
const OWN_TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';

/** Issue 15 item 5: `svc admin reset-password`, on the data directory or database, for a lost password. */
describe('svc admin reset-password', () => {
  let dataDir: string;
  let t: TestServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'svc-reset-'));
    t = await startTestServer({ backend: 'sqlite', pluginsDirs: [], env: { SVC_DATA_DIR: dataDir } });
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sets the password read from standard input on a running server, and a restart ends the old sessions', async () => {
    const admin = await login(t, ADMIN.username, ADMIN.password);
    const bob = await userWithRoles(t, admin, 'bob', ['editor']);
    const token = await as(t, bob)('POST', OWN_TOKENS, { spec: { name: 'ci', roles: ['editor'] } });
    expect(token.status).toBe(201);
    const reset = await svc(['admin', 'reset-password', 'bob', '--data-dir', dataDir, '--password-stdin'], {
      input: 'a-new-password-456\n',
    });
    expect(reset.stderr).toContain('reset the password of "bob"');
    expect(reset.stderr).toContain('ended 1 of their sessions');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toBe('');
    // The running server reads the password from the store at each sign-in.
    expect((await t.anonymous('POST', '/login', { username: 'bob', password: 'bob-password-123' })).status).toBe(401);
    const signedIn = await login(t, 'bob', 'a-new-password-456');
    expect((await as(t, signedIn)('GET', OWN_PERMISSIONS)).status).toBe(200);

    // A server started afterwards knows nothing of the ended session; the token stays valid (nothing else changes).
    await t.server.close();
    await rm(t.dataDir, { recursive: true, force: true });
    t = await startTestServer({ backend: 'sqlite', pluginsDirs: [], env: { SVC_DATA_DIR: dataDir } });
    expect((await as(t, bob)('GET', OWN_PERMISSIONS)).status).toBe(401);
    const secret = token.body.metadata.annotations['security.svc.run/access-token'];
    const byToken = await t.anonymous('GET', OWN_PERMISSIONS, undefined, { authorization: `Bearer ${secret}` });
    expect(byToken.status).toBe(200);
  }, 60_000);

  it('generates a password and prints it once when none is given', async () => {
    const reset = await svc(['admin', 'reset-password', 'admin'], { env: { SVC_DATA_DIR: dataDir } });
    expect(reset.code).toBe(0);
    const password = /shown once\):\n\n {4}(\S+)\n/.exec(reset.stdout)?.[1];
    expect(password).toHaveLength(24);
    expect((await t.anonymous('POST', '/login', { username: 'admin', password })).status).toBe(200);
  });

  it('refuses an unknown user, a short password and a data directory without a database (exit 1)', async () => {
    const unknown = await svc(['admin', 'reset-password', 'nobody', '--data-dir', dataDir]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe('svc admin reset-password: there is no user "nobody" in this store\n');
    const short = await svc(['admin', 'reset-password', 'bob', '--data-dir', dataDir, '--password-stdin'], {
      input: 'short\n',
    });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('the new password must be at least 8 characters long');
    const missing = path.join(dataDir, 'not-here');
    const nowhere = await svc(['admin', 'reset-password', 'bob', '--data-dir', missing]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain(`no svc database at ${path.join(missing, 'svc.db')}`);
    expect(existsSync(missing)).toBe(false);
  });

  it('answers --help without opening anything, and refuses unknown flags and commands (exit 2)', async () => {
    const nowhere = path.join(dataDir, 'help-only');
    const help = await svc(['admin', 'reset-password', '--help', '--data-dir', nowhere]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: svc admin reset-password <user>/);
    expect(existsSync(nowhere)).toBe(false);
    const flag = await svc(['admin', 'reset-password', 'bob', '--password-stding']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown flag "--password-stding"; did you mean "--password-stdin"?');
    const command = await svc(['admin', 'reset-pasword', 'bob']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "reset-pasword"; did you mean "reset-password"?');
    const nothing = await svc(['admin']);
    expect(nothing).toMatchObject({ code: 2, stdout: '' });
    expect(nothing.stderr).toContain('svc admin: which command? (reset-password)');
    const noUser = await svc(['admin', 'reset-password', '--data-dir', dataDir]);
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toContain('which user?');
  });

  it('works on PostgreSQL, in the schema SVC_DATABASE_SCHEMA names', async () => {
    const schema = `t_reset_${Math.random().toString(36).slice(2, 8)}`;
    const pg = await startTestServer({ backend: 'postgres', schema, pluginsDirs: [] });
    try {
      const admin = await login(pg, ADMIN.username, ADMIN.password);
      await userWithRoles(pg, admin, 'carol', []);
      const reset = await svc(['admin', 'reset-password', 'carol', '--password-stdin'], {
        input: 'carols-new-password',
        env: { SVC_DATABASE_URL: PG_URL, SVC_DATABASE_SCHEMA: schema },
      });
      expect(reset.stderr).toContain(`(schema ${schema})`);
      expect(reset.code).toBe(0);
      expect(
        (await pg.anonymous('POST', '/login', { username: 'carol', password: 'carols-new-password' })).status,
      ).toBe(200);
    } finally {
      await pg.close();
    }
  }, 60_000);
});
