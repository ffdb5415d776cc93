import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, startTestServer, superAdminToken, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-grants');
const ECHO = '/apis/api.echo-caller.svc.run/v1/echo';
const CREDENTIALS = ['cookie', 'authorization', 'proxy-authorization', 'x-xsrf-token'];

/**
 * Issue 28, item 6: a plugin's custom-route handler is told who calls (name and roles) and gets the request without
 * the caller's credentials: no cookie, bearer token, Basic credentials or CSRF token to replay elsewhere.
 */
describe.each(BACKENDS)('a plugin route gets the caller, not their credentials (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;
  let editor: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    admin = await login(t, ADMIN.username, ADMIN.password);
    editor = await userWithRoles(t, admin, 'edna', ['editor']);
    const { body, headers } = multipart(await tgzOf(path.join(FIXTURES, 'echo-caller')));
    expect((await as(t, admin)('POST', `${CONSOLE}/plugins/install`, body, headers)).status).toBe(201);
    const started = await as(t, admin)('PUT', `${CONSOLE}/plugins/echo-caller/plugin-state`, { enable: true });
    expect(started.body.status.phase).toBe('STARTED');
  }, 60_000);
  afterAll(() => t.close());

  it('hands a session caller their name and roles, without cookie or CSRF header', async () => {
    const echoed = await as(t, editor)('POST', ECHO, { hello: 1 }, { 'x-trace': 'kept' });
    expect(echoed.status).toBe(200);
    expect(echoed.body.user).toEqual({
      name: 'edna',
      roles: [
        'anonymous',
        'authenticated',
        'author',
        'contributor',
        'echo-caller-role-view-echo',
        'editor',
        'guest',
        'role-template-own-permissions',
        'role-template-own-tokens',
      ],
    });
    for (const header of CREDENTIALS) expect(echoed.body.headers).not.toHaveProperty(header);
    expect(echoed.body.headers['x-trace']).toBe('kept');
    expect(echoed.body.headers['content-type']).toBe('application/json');
  });

  it("hands a token caller the token's roles, without the bearer token", async () => {
    const token = await superAdminToken(t, 'echo');
    const echoed = await t.anonymous('GET', ECHO, undefined, {
      authorization: `Bearer ${token}`,
      'proxy-authorization': 'Basic c2VjcmV0OnNlY3JldA==',
    });
    expect(echoed.status).toBe(200);
    expect(echoed.body.user.name).toBe('admin');
    expect(echoed.body.user.roles).toContain('super-role');
    expect(JSON.stringify(echoed.body)).not.toContain(token);
    for (const header of CREDENTIALS) expect(echoed.body.headers).not.toHaveProperty(header);
  });

  it('hands an anonymous caller no user', async () => {
    const echoed = await t.anonymous('GET', ECHO, undefined, { cookie: 'other=1' });
    expect(echoed.status).toBe(200);
    expect(echoed.body.user).toBeNull();
    expect(echoed.body.headers).not.toHaveProperty('cookie');
  });
});
