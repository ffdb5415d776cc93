import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, CONSOLE, login, type Session } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';
import { NOTES, NOTES_PLUGINS, note, type WatchClient, watchHttp, watchWebSocket } from './watch-client.js';

const ROLES = '/api/v1alpha1/roles';
const BINDINGS = '/api/v1alpha1/rolebindings';
const USERS = '/api/v1alpha1/users';
const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const merge = { 'content-type': 'application/merge-patch+json' };

const watcherRole = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1alpha1',
  kind: 'Role',
  metadata: { name, labels },
  rules: [{ apiGroups: ['notes.svc.run'], resources: ['notes'], verbs: ['get', 'list', 'watch'] }],
});

/** The ERROR event a watch ends with when its caller loses access (docs/access-control.md, "When watches end"). */
const endedWith = (code: number, reason: string) => ({
  type: 'ERROR',
  object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: expect.any(String) },
});

/** Every trigger that takes a watch's access away ends it with 401 or 403, over HTTP and WebSocket. */
describe.each(BACKENDS)('watches end when their caller loses access (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  /** The administrator's own watch: what it sees proves a change was published to every watcher. */
  let control: WatchClient;
  let serial = 0;

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [NOTES_PLUGINS] });
    base = await t.server.listen();
    expect((await t.request('POST', ROLES, watcherRole('notes-watcher'))).status).toBe(201);
    const watch = watchHttp(base, `${NOTES}?watch=true&resourceVersion=${await revision()}`, {
      headers: t.adminHeaders,
    });
    await watch.response;
    control = watch;
  });
  afterAll(async () => {
    control?.close();
    await t?.close();
  });

  async function revision(): Promise<string> {
    return (await t.request('GET', NOTES)).body.metadata.resourceVersion;
  }

  async function user(name: string, roles = ['notes-watcher']): Promise<Session & { password: string }> {
    const password = `${name}-password-123`;
    const created = await t.request('POST', `${CONSOLE}/users`, { name, password, roles });
    expect(created.status).toBe(201);
    return { ...(await login(t, name, password)), password };
  }

  async function tokenOf(
    session: Session,
    expiresAt?: string,
  ): Promise<{ name: string; headers: Record<string, string> }> {
    const spec = { name: `watch-${++serial}`, roles: ['notes-watcher'], ...(expiresAt ? { expiresAt } : {}) };
    const created = await as(t, session)('POST', TOKENS, { spec });
    expect(created.status).toBe(201);
    const token = created.body.metadata.annotations['security.svc.run/access-token'];
    return { name: created.body.metadata.name, headers: { authorization: `Bearer ${token}` } };
  }

  /** Opens a watch from now on and proves it streams: a note created now arrives. */
  async function streamingWatch(
    headers: Record<string, string>,
    transport: 'http' | 'ws' = 'http',
  ): Promise<WatchClient> {
    const query = `resourceVersion=${await revision()}`;
    const watch =
      transport === 'http'
        ? watchHttp(base, `${NOTES}?watch=true&${query}`, { headers })
        : watchWebSocket(base, `${NOTES}?${query}`, { headers });
    const name = `n-${++serial}`;
    expect((await t.request('POST', NOTES, note(name))).status).toBe(201);
    await watch.until(
      (events) => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === name),
      `${name} ADDED`,
    );
    return watch;
  }

  /** The watch ends with exactly this ERROR, and a change made afterwards reaches the control watch but not it. */
  async function expectEnded(watch: WatchClient, code: number, reason: string): Promise<void> {
    await watch.until(() => watch.isEnded(), 'the watch to end', 10_000);
    expect(watch.events.at(-1)).toEqual(endedWith(code, reason));
    const seen = watch.events.length;
    const name = `after-${++serial}`;
    expect((await t.request('POST', NOTES, note(name))).status).toBe(201);
    await control.until(
      (events) => events.some((e) => e.object.metadata?.name === name),
      `${name} on the control watch`,
    );
    expect(watch.events.length).toBe(seen);
  }

  it('ends with 403 when the binding that allowed the watch is deleted (HTTP and WebSocket)', async () => {
    const ann = await user('ann');
    const overHttp = await streamingWatch(ann.headers);
    const token = await tokenOf(ann);
    const overWebSocket = await streamingWatch(token.headers, 'ws');
    const bindings = (await t.request('GET', BINDINGS)).body.items.filter((b: any) =>
      b.subjects.some((s: any) => s.name === 'ann'),
    );
    expect(bindings.map((b: any) => b.roleRef.name)).toEqual(['notes-watcher']);
    expect((await t.request('DELETE', `${BINDINGS}/${bindings[0].metadata.name}`)).status).toBe(200);
    await expectEnded(overHttp, 403, 'Forbidden');
    await expectEnded(overWebSocket, 403, 'Forbidden');
    expect(overHttp.events.at(-1)!.object.message).toMatch(/^user "ann" may no longer watch this: no rule/);
  });

  it("ends with 403 when the role's rules no longer allow watch", async () => {
    expect((await t.request('POST', ROLES, watcherRole('notes-narrowed'))).status).toBe(201);
    const bob = await user('bob', ['notes-narrowed']);
    const watch = await streamingWatch(bob.headers);
    const changed = await t.request(
      'PATCH',
      `${ROLES}/notes-narrowed`,
      {
        rules: [{ apiGroups: ['notes.svc.run'], resources: ['notes'], verbs: ['get', 'list'] }],
      },
      merge,
    );
    expect(changed.status).toBe(200);
    await expectEnded(watch, 403, 'Forbidden');
  });

  it('ends with 403 when the aggregation that brought the rule is removed', async () => {
    expect(
      (
        await t.request('POST', ROLES, {
          apiVersion: 'v1alpha1',
          kind: 'Role',
          metadata: { name: 'notes-team' },
          rules: [],
        })
      ).status,
    ).toBe(201);
    const aggregated = watcherRole('notes-aggregated', {
      'rbac.authorization.svc.run/aggregate-to-notes-team': 'true',
    });
    expect((await t.request('POST', ROLES, aggregated)).status).toBe(201);
    const cleo = await user('cleo', ['notes-team']);
    const watch = await streamingWatch(cleo.headers);
    const unlabelled = { metadata: { labels: { 'rbac.authorization.svc.run/aggregate-to-notes-team': null } } };
    expect((await t.request('PATCH', `${ROLES}/notes-aggregated`, unlabelled, merge)).status).toBe(200);
    await expectEnded(watch, 403, 'Forbidden');
  });

  it('keeps streaming when a role change leaves the watch allowed', async () => {
    const dora = await user('dora');
    const watch = await streamingWatch(dora.headers);
    expect((await t.request('POST', ROLES, watcherRole('unrelated'))).status).toBe(201);
    await user('dora-neighbour', ['unrelated']);
    expect((await t.request('DELETE', `${ROLES}/unrelated`)).status).toBe(200);
    const name = `still-${++serial}`;
    expect((await t.request('POST', NOTES, note(name))).status).toBe(201);
    await watch.until((events) => events.some((e) => e.object.metadata.name === name), `${name} ADDED`);
    expect(watch.isEnded()).toBe(false);
    expect(watch.events.map((e) => e.type)).toEqual(['ADDED', 'ADDED']);
    watch.close();
  });

  it('ends with 401 when the session signs out', async () => {
    const eve = await user('eve');
    const watch = await streamingWatch(eve.headers);
    expect((await as(t, eve)('POST', '/logout')).status).toBe(204);
    await expectEnded(watch, 401, 'Unauthorized');
  });

  it('ends with 401 when the token is revoked, or deleted', async () => {
    const fay = await user('fay');
    const revoked = await tokenOf(fay);
    const deleted = await tokenOf(fay);
    const watchRevoked = await streamingWatch(revoked.headers);
    const watchDeleted = await streamingWatch(deleted.headers, 'ws');
    const other = await streamingWatch(fay.headers);
    expect((await as(t, fay)('PUT', `${TOKENS}/${revoked.name}/revocation`)).status).toBe(200);
    await expectEnded(watchRevoked, 401, 'Unauthorized');
    expect((await as(t, fay)('DELETE', `${TOKENS}/${deleted.name}`)).status).toBe(200);
    await expectEnded(watchDeleted, 401, 'Unauthorized');
    // The user's session watch is not the tokens' business.
    expect(other.isEnded()).toBe(false);
    other.close();
  });

  it('ends with 401 when the token expires', async () => {
    const gus = await user('gus');
    const token = await tokenOf(gus, new Date(Date.now() + 3_000).toISOString());
    const watch = await streamingWatch(token.headers);
    await expectEnded(watch, 401, 'Unauthorized');
    expect(watch.events.at(-1)!.object.message).toMatch(/access token/);
  });

  it('ends with 401 when the user is disabled', async () => {
    const hal = await user('hal');
    const session = await streamingWatch(hal.headers);
    const token = await streamingWatch((await tokenOf(hal)).headers, 'ws');
    expect((await t.request('PATCH', `${USERS}/hal`, { spec: { disabled: true } }, merge)).status).toBe(200);
    await expectEnded(session, 401, 'Unauthorized');
    await expectEnded(token, 401, 'Unauthorized');
  });

  it('ends when the user is deleted: their bindings go first in the same write, so the first check finds no role', async () => {
    const ida = await user('ida');
    const session = await streamingWatch(ida.headers);
    const token = await streamingWatch((await tokenOf(ida)).headers);
    expect((await t.request('DELETE', `${USERS}/ida`)).status).toBe(200);
    await expectEnded(session, 403, 'Forbidden');
    await expectEnded(token, 403, 'Forbidden');
  });

  it("ends with 401 the user's other sessions when they change their password", async () => {
    const jo = await user('jo');
    const watch = await streamingWatch(jo.headers);
    const elsewhere = await login(t, 'jo', jo.password);
    const kept = await streamingWatch(elsewhere.headers);
    const changed = await as(t, elsewhere)('PUT', `${CONSOLE}/users/-/password`, {
      oldPassword: jo.password,
      password: 'jo-new-password-456',
    });
    expect(changed.status).toBe(204);
    await expectEnded(watch, 401, 'Unauthorized');
    // The session the change was made with stays signed in, and so do its watches.
    expect(kept.isEnded()).toBe(false);
    kept.close();
  });

  it('ends with 401 when an administrator resets the password', async () => {
    const kit = await user('kit');
    const watch = await streamingWatch(kit.headers);
    expect((await t.request('PUT', `${CONSOLE}/users/kit/password`, { password: 'kit-new-password-456' })).status).toBe(
      204,
    );
    await expectEnded(watch, 401, 'Unauthorized');
  });

  it('ends an anonymous watch with 401 when the resource stops being public', async () => {
    const label = { 'rbac.authorization.svc.run/aggregate-to-anonymous': 'true' };
    expect((await t.request('POST', ROLES, watcherRole('notes-public', label))).status).toBe(201);
    const watch = await streamingWatch({});
    expect((await t.request('DELETE', `${ROLES}/notes-public`)).status).toBe(200);
    await expectEnded(watch, 401, 'Unauthorized');
    expect(watch.events.at(-1)!.object.message).toMatch(/^sign in to watch this/);
  });
});

/** A session's streams end with it: at its idle timeout (a watch is not use) and at its maximum age. */
describe.each(BACKENDS)('watches end when their session expires (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  /** The administrator acts with a token here: their own session expires as quickly as everyone's. */
  let admin: Record<string, string>;
  beforeAll(async () => {
    t = await startTestServer({
      backend,
      pluginsDirs: [NOTES_PLUGINS],
      env: { SVC_SESSION_IDLE_TIMEOUT: '2s', SVC_SESSION_MAX_AGE: '4s' },
    });
    base = await t.server.listen();
    const token = await t.request('POST', TOKENS, { spec: { name: 'admin', roles: ['super-role'] } });
    admin = { authorization: `Bearer ${token.body.metadata.annotations['security.svc.run/access-token']}` };
    expect((await t.request('POST', ROLES, watcherRole('notes-watcher'), admin)).status).toBe(201);
  });
  afterAll(() => t?.close());

  async function session(name: string): Promise<Session> {
    const password = `${name}-password-123`;
    expect(
      (await t.request('POST', `${CONSOLE}/users`, { name, password, roles: ['notes-watcher'] }, admin)).status,
    ).toBe(201);
    return login(t, name, password);
  }

  const watchOf = async (headers: Record<string, string>) => {
    const watch = watchHttp(base, `${NOTES}?watch=true`, { headers });
    expect((await watch.response).statusCode).toBe(200);
    return watch;
  };

  it('ends with 401 at the idle timeout when the session is used for nothing else', async () => {
    const lea = await session('lea');
    const watch = await watchOf(lea.headers);
    await watch.until(() => watch.isEnded(), 'the watch to end', 10_000);
    expect(watch.events).toEqual([endedWith(401, 'Unauthorized')]);
    expect((await as(t, lea)('GET', NOTES)).status).toBe(401);
  });

  it('ends with 401 at the maximum age however busy the session is', async () => {
    const max = await session('max');
    const watch = await watchOf(max.headers);
    // Used every few hundred milliseconds, it never idles out: only the maximum age can end it.
    while (!watch.isEnded()) {
      await as(t, max)('GET', NOTES);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(watch.events).toEqual([endedWith(401, 'Unauthorized')]);
    expect((await as(t, max)('GET', NOTES)).status).toBe(401);
  });
});
