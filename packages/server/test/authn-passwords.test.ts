import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_PASSWORD, type Browser, createUser, signIn, startAuthServer } from './authn-helpers.js';
import { eventually } from './eventually.js';
import type { TestServer } from './harness.js';

const CONSOLE = '/apis/api.console.svc.run/v1alpha1';

describe('console user endpoints', () => {
  let t: TestServer;
  let admin: Browser;
  const alive = (browser: Browser) =>
    t.server.authn.authenticator
      .authenticate({
        method: 'GET',
        url: '/api/v1alpha1/users',
        ip: '127.0.0.1',
        headers: { cookie: browser.cookie },
      } as never)
      .then(
        () => true,
        () => false,
      );
  beforeAll(async () => {
    t = await startAuthServer();
    admin = await signIn(t, ADMIN, ADMIN_PASSWORD);
  });
  afterAll(() => t?.close());

  it('creates a user with a password that signs in; the User object holds no password', async () => {
    const response = await admin.request('POST', `${CONSOLE}/users`, {
      name: 'erin',
      password: 'erin password',
      email: 'erin@example.com',
      displayName: 'Erin',
    });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/v1alpha1/users/erin');
    expect(response.body).toMatchObject({
      kind: 'User',
      metadata: { name: 'erin' },
      spec: { email: 'erin@example.com', displayName: 'Erin' },
    });
    expect(response.text).not.toMatch(/password|scrypt/);
    const erin = await signIn(t, 'erin', 'erin password');
    expect(await alive(erin)).toBe(true);
    // Recorded off the sign-in's path: waited for, not assumed done within a fixed time.
    const user = () => t.server.objects.get(t.server.registry.findByKind('v1alpha1', 'User')!, 'erin');
    await eventually(async () => (await user()).status?.lastLoginAt !== undefined, 'lastLoginAt');
    expect((await user()).status?.lastLoginAt).toMatch(/^\d{4}-/);
  });

  it('creates a user with roles through role management', async () => {
    const response = await createUser(admin, 'frank', 'frank password', ['editor']);
    expect(response.status).toBe(201);
    expect(t.server.authn.users.exists('frank')).toBe(true);
  });

  it('refuses a short password, a duplicate name and an invalid name with clear errors', async () => {
    const short = await createUser(admin, 'gina', 'short');
    expect(short.status).toBe(400);
    expect(short.body.detail).toBe('password must be at least 8 characters long');
    expect(t.server.authn.users.exists('gina')).toBe(false);
    expect((await createUser(admin, 'erin', 'another password')).status).toBe(409);
    expect((await createUser(admin, 'Not Valid', 'long enough')).status).toBe(400);
  });

  it('rolls the user back when a role is refused', async () => {
    const response = await createUser(admin, 'hank', 'hank password', ['no-such-role']);
    expect(response.status).toBe(400);
    expect(t.server.authn.users.exists('hank')).toBe(false);
    expect(await t.server.authn.credentials.hasPassword('hank')).toBe(false);
  });

  it("changes one's own password and ends one's other sessions, keeping this one", async () => {
    await createUser(admin, 'ivan', 'ivan password');
    const here = await signIn(t, 'ivan', 'ivan password');
    const elsewhere = await signIn(t, 'ivan', 'ivan password');
    const wrongOld = await here.request('PUT', `${CONSOLE}/users/-/password`, {
      oldPassword: 'nope nope',
      password: 'ivan new password',
    });
    expect(wrongOld.status).toBe(400);
    expect(wrongOld.body.errors).toEqual([{ path: '/oldPassword', message: 'is not your current password' }]);
    const tooShort = await here.request('PUT', `${CONSOLE}/users/-/password`, {
      oldPassword: 'ivan password',
      password: 'short',
    });
    expect(tooShort.status).toBe(400);

    const changed = await here.request('PUT', `${CONSOLE}/users/-/password`, {
      oldPassword: 'ivan password',
      password: 'ivan new password',
    });
    expect(changed.status).toBe(204);
    expect(await alive(here)).toBe(true);
    expect(await alive(elsewhere)).toBe(false);
    expect((await t.request('POST', '/login', { username: 'ivan', password: 'ivan password' })).status).toBe(401);
    await signIn(t, 'ivan', 'ivan new password');
  });

  it("lets an administrator reset another user's password, ending all their sessions", async () => {
    await createUser(admin, 'judy', 'judy password');
    const judy = await signIn(t, 'judy', 'judy password');
    const reset = await admin.request('PUT', `${CONSOLE}/users/judy/password`, { password: 'judy reset password' });
    expect(reset.status).toBe(204);
    expect(await alive(judy)).toBe(false);
    await signIn(t, 'judy', 'judy reset password');
    expect((await admin.request('PUT', `${CONSOLE}/users/nobody/password`, { password: 'whatever123' })).status).toBe(
      404,
    );
  });

  it('signs out a user who is disabled, and refuses their sign-in', async () => {
    await createUser(admin, 'kim', 'kim password');
    const kim = await signIn(t, 'kim', 'kim password');
    const users = t.server.registry.findByKind('v1alpha1', 'User')!;
    await t.server.objects.patch(users, 'kim', (u) => ({ ...u, spec: { disabled: true } }));
    expect(await alive(kim)).toBe(false);
    const login = await t.request('POST', '/login', { username: 'kim', password: 'kim password' });
    expect(login.status).toBe(401);
    expect(login.body.detail).toBe('invalid username or password');
  });

  it("forgets a deleted user's password", async () => {
    await createUser(admin, 'liam', 'liam password');
    await t.server.objects.delete(t.server.registry.findByKind('v1alpha1', 'User')!, 'liam');
    await eventually(async () => !(await t.server.authn.credentials.hasPassword('liam')), 'the password forgotten');
    expect(await t.server.authn.credentials.hasPassword('liam')).toBe(false);
  });
});
