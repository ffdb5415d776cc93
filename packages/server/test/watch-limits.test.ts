import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { eventually } from './eventually.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';
import { NOTES, NOTES_PLUGINS, type WatchClient, watchHttp, watchWebSocket } from './watch-client.js';

const EVENTS = `${CONSOLE}/users/-/console-events`;
const LIMIT = 3;

/** A GET answered at once (not a stream): its status, content type and parsed body. */
function getOnce(base: string, pathAndQuery: string, headers: Record<string, string>) {
  return new Promise<{ status: number; type: string; body: any }>((resolve, reject) => {
    http
      .get(`${base}${pathAndQuery}`, { headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: JSON.parse(text) }),
        );
      })
      .on('error', reject);
  });
}

/**
 * Issue 28, item 5: one caller holds at most SVC_MAX_WATCHES_PER_USER streams at once, watches (WebSocket and
 * `?watch=true`) and console event streams together, super administrators too; past it a 429 naming the limit (an
 * ERROR event on a WebSocket), and a stream that ends gives its place back.
 */
describe.each(BACKENDS)('open streams per caller (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  let lou: Session;
  let tim: Session;
  const open: WatchClient[] = [];
  const keep = <T extends WatchClient>(client: T): T => {
    open.push(client);
    return client;
  };
  const ready = (client: WatchClient) => client.until((events) => events.length > 0, 'the first event');

  beforeAll(async () => {
    t = await startTestServer({
      backend,
      pluginsDirs: [NOTES_PLUGINS],
      env: { SVC_MAX_WATCHES_PER_USER: String(LIMIT) },
    });
    base = await t.server.listen();
    const admin = await login(t, ADMIN.username, ADMIN.password);
    lou = await userWithRoles(t, admin, 'lou', []);
    const watcher = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'note-watcher' },
      rules: [{ apiGroups: ['notes.svc.run'], resources: ['notes'], verbs: ['list', 'watch'] }],
    };
    expect((await t.request('POST', '/api/v1alpha1/roles', watcher)).status).toBe(201);
    tim = await userWithRoles(t, admin, 'tim', ['note-watcher']);
  }, 60_000);
  afterAll(async () => {
    for (const client of open) client.close();
    await t.close();
  });

  const refused = (answer: { status: number; type: string; body: any }, owner: string) => {
    expect(answer.status).toBe(429);
    expect(answer.type).toContain('application/problem+json');
    expect(answer.body.detail).toBe(
      `too many open watches: ${owner} has ${LIMIT} open (watches and console event streams count together; the ` +
        `limit is SVC_MAX_WATCHES_PER_USER=${LIMIT}); close one first`,
    );
  };

  it("caps a role-less user's console event streams, and gives a place back when one closes", async () => {
    const streams = [1, 2, 3].map(() => keep(watchHttp(base, EVENTS, { headers: lou.headers })));
    for (const stream of streams) await ready(stream);
    expect(streams.map((s) => s.events[0]!.type)).toEqual(['READY', 'READY', 'READY']);
    refused(await getOnce(base, EVENTS, lou.headers), 'user "lou"');
    streams[0]!.close();
    await streams[0]!.ended;
    // The server hears of the close a moment later: then a new stream fits again.
    await eventually(async () => {
      const again = keep(watchHttp(base, EVENTS, { headers: lou.headers }));
      const status = (await again.response).statusCode;
      if (status !== 200) again.close();
      return status === 200;
    }, 'a place given back');
  });

  it('counts a super administrator’s watches over both transports and console events together', async () => {
    const ws = keep(watchWebSocket(base, NOTES, { headers: t.adminHeaders }));
    const streamed = keep(watchHttp(base, `${NOTES}?watch=true`, { headers: t.adminHeaders }));
    const events = keep(watchHttp(base, EVENTS, { headers: t.adminHeaders }));
    await eventually(() => t.server.watches.stats().watchers >= 2, 'two watches');
    await ready(events);
    expect((await streamed.response).statusCode).toBe(200);

    refused(await getOnce(base, `${NOTES}?watch=true`, t.adminHeaders), 'user "admin"');
    refused(await getOnce(base, EVENTS, t.adminHeaders), 'user "admin"');
    const over = keep(watchWebSocket(base, NOTES, { headers: t.adminHeaders }));
    await over.ended;
    expect(over.events).toHaveLength(1);
    expect(over.events[0]!.type).toBe('ERROR');
    expect(over.events[0]!.object).toMatchObject({ kind: 'Status', code: 429, reason: 'TooManyRequests' });
    expect(over.events[0]!.object.message).toContain(`the limit is SVC_MAX_WATCHES_PER_USER=${LIMIT}`);
    expect(ws.isEnded()).toBe(false);

    ws.close();
    await ws.ended;
    await eventually(async () => {
      const again = keep(watchHttp(base, `${NOTES}?watch=true`, { headers: t.adminHeaders }));
      const status = (await again.response).statusCode;
      if (status !== 200) again.close();
      return status === 200;
    }, 'a place given back');
  });

  it('gives the place back when the server ends a watch (timeoutSeconds)', async () => {
    const timed = [1, 2, 3].map(() =>
      keep(watchWebSocket(base, `${NOTES}?timeoutSeconds=1`, { headers: tim.headers })),
    );
    for (const client of timed) await client.ended;
    expect(timed.map((c) => c.events.some((e) => e.type === 'ERROR'))).toEqual([false, false, false]);
    const after = [1, 2, 3].map(() => keep(watchHttp(base, `${NOTES}?watch=true`, { headers: tim.headers })));
    expect((await Promise.all(after.map((a) => a.response))).map((r) => r.statusCode)).toEqual([200, 200, 200]);
    refused(await getOnce(base, `${NOTES}?watch=true`, tim.headers), 'user "tim"');
  });
});
