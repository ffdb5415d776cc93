/**
 * The console's event stream (docs/api.md "Console events") as a client reads it: an NDJSON stream like a watch's,
 * ending with a 401 ERROR event when the credential it was opened with ends, whichever kind it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, CONSOLE, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';
import { type WatchClient, watchHttp } from './watch-client.js';

const EVENTS = `${CONSOLE}/users/-/console-events`;
const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const USERS = '/api/v1alpha1/users';

describe.each(BACKENDS)('console events (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  let admin: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [], env: { SVC_BASIC_AUTH: 'true' } });
    base = await t.server.listen();
    admin = { username: 'admin', headers: t.adminHeaders };
  });
  afterAll(async () => {
    await t?.close();
  });

  async function tokenHeaders(session: Session): Promise<{ name: string; headers: Record<string, string> }> {
    const created = await as(t, session)('POST', TOKENS, { spec: { name: 'events', roles: [] } });
    expect(created.status).toBe(201);
    const token = created.body.metadata.annotations['security.svc.run/access-token'];
    return { name: created.body.metadata.name, headers: { authorization: `Bearer ${token}` } };
  }

  async function ready(headers: Record<string, string>): Promise<WatchClient> {
    const events = watchHttp(base, EVENTS, { headers });
    await events.until((e) => e.some((x) => x.type === 'READY'), 'READY');
    return events;
  }

  async function endedWith401(events: WatchClient): Promise<void> {
    await events.ended;
    expect(events.events.at(-1)).toMatchObject({ type: 'ERROR', object: { code: 401, reason: 'Unauthorized' } });
  }

  it('is a newline-delimited JSON stream carrying the request id, READY first', async () => {
    const amy = await userWithRoles(t, admin, 'amy', []);
    const events = watchHttp(base, EVENTS, { headers: { ...amy.headers, 'x-request-id': 'events-1' } });
    const response = await events.response;
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': 'events-1',
    });
    await events.until((e) => e.length > 0, 'READY');
    expect(events.events[0]).toEqual({ type: 'READY', uiPermissions: [] });
    events.close();
  });

  it('ends with 401 when the token it was opened with is revoked; the same user’s session stream stays', async () => {
    const bo = await userWithRoles(t, admin, 'bo', []);
    const token = await tokenHeaders(bo);
    const byToken = await ready(token.headers);
    const bySession = await ready(bo.headers);
    expect((await as(t, bo)('PUT', `${TOKENS}/${token.name}/revocation`)).status).toBe(200);
    await endedWith401(byToken);
    expect(byToken.events.at(-1)!.object.message).toMatch(/access token/);
    expect(bySession.isEnded()).toBe(false);
    bySession.close();
  });

  it('ends every stream of a user who is disabled', async () => {
    const cy = await userWithRoles(t, admin, 'cy', []);
    const streams = [await ready(cy.headers), await ready((await tokenHeaders(cy)).headers)];
    const disabled = await t.request(
      'PATCH',
      `${USERS}/cy`,
      { spec: { disabled: true } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(disabled.status).toBe(200);
    for (const events of streams) await endedWith401(events);
  });

  it('ends a stream opened with HTTP Basic when the password changes', async () => {
    const di = await userWithRoles(t, admin, 'di', []);
    const basic = { authorization: `Basic ${Buffer.from('di:di-password-123').toString('base64')}` };
    const events = await ready(basic);
    const changed = await as(t, di)('PUT', `${CONSOLE}/users/-/password`, {
      oldPassword: 'di-password-123',
      password: 'di-new-password-456',
    });
    expect(changed.status).toBe(204);
    await endedWith401(events);
    expect(events.events.at(-1)!.object.message).toMatch(/password has changed/);
  });
});
