/**
 * Signing in to a disabled account (issue 28, item 3): answered exactly as a wrong password, so the answer is no
 * oracle for the password; the reason is in the server's log only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_PASSWORD, createUser, signIn } from './authn-helpers.js';
import { BACKENDS, capturingLogger, startTestServer, type TestServer } from './harness.js';

const USERS = '/api/v1alpha1/users';
const MERGE = { 'content-type': 'application/merge-patch+json' };

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe.each(BACKENDS)('a disabled account signing in (%s)', (backend) => {
  it('gets the answer of a wrong password, counts as a failure, and the log says why', async () => {
    const log = capturingLogger();
    t = await startTestServer({
      backend,
      pluginsDirs: [],
      logger: log.logger,
      env: { SVC_ADMIN_PASSWORD: ADMIN_PASSWORD },
      credentials: 'none',
    });
    const server = t;
    const admin = await signIn(server, ADMIN, ADMIN_PASSWORD);
    expect((await createUser(admin, 'kim', 'kim password')).status).toBe(201);
    expect((await admin.request('PATCH', `${USERS}/kim`, { spec: { disabled: true } }, MERGE)).status).toBe(200);
    const login = (password: string, remoteAddress: string) =>
      server.server.app.inject({
        method: 'POST',
        url: '/login',
        payload: { username: 'kim', password },
        remoteAddress,
      });

    const rightPassword = await login('kim password', '10.0.0.1');
    const wrongPassword = await login('not kim password', '10.0.0.2');
    expect(rightPassword.statusCode).toBe(401);
    expect(wrongPassword.statusCode).toBe(401);
    // Status, headers that matter and body are the same; only the request id differs.
    for (const header of ['content-type', 'www-authenticate', 'set-cookie']) {
      expect(rightPassword.headers[header]).toEqual(wrongPassword.headers[header]);
    }
    const { requestId: _a, ...right } = rightPassword.json();
    const { requestId: _b, ...wrong } = wrongPassword.json();
    expect(right).toEqual(wrong);
    expect(right.detail).toBe('invalid username or password');

    // The log names the reason, for the right password only.
    const refusals = log.lines().filter((line) => line.msg === 'sign-in refused: the account is disabled');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ username: 'kim', level: 30 });

    // The right password to a disabled account is a failure like any other: five of them, and that client waits.
    for (let i = 0; i < 4; i++) expect((await login('kim password', '10.0.0.1')).statusCode).toBe(401);
    expect((await login('kim password', '10.0.0.1')).statusCode).toBe(429);
  });
});
