/**
 * The sign-in throttle over HTTP (issue 13, item 8): a client is refused after its failures, a username attacked from
 * many clients only slows down, and the same limits guard Basic credentials and the own-password change. Clients are
 * told apart by their address (inject's `remoteAddress`); the slow-down's sleeps go to a clock the test reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_PASSWORD, setCookies } from './authn-helpers.js';
import { eventually } from './eventually.js';
import { BACKENDS, type Backend, startTestServer, type TestServer } from './harness.js';

const CONSOLE = '/apis/api.console.svc.run/v1alpha1';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A server whose sign-in slow-downs are recorded in `slept` instead of waited for. */
async function start(backend: Backend, env: Record<string, string> = {}) {
  const slept: number[] = [];
  t = await startTestServer({
    backend,
    pluginsDirs: [],
    env: { SVC_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env },
    credentials: 'none',
    serverOptions: { login: { clock: { sleep: async (ms) => void slept.push(ms) } } },
  });
  return { t, slept };
}

const send = (
  server: TestServer,
  method: string,
  url: string,
  remoteAddress: string,
  payload?: unknown,
  headers = {},
) => server.server.app.inject({ method: method as 'GET', url, payload: payload as object, headers, remoteAddress });

const attempt = (server: TestServer, username: string, password: string, remoteAddress: string) =>
  send(server, 'POST', '/login', remoteAddress, { username, password });

describe.each(BACKENDS)('sign-in throttle (%s)', (backend) => {
  it('a stranger failing from one client does not stop the user signing in from another; the stranger gets 429', async () => {
    const { t, slept } = await start(backend);
    for (let i = 0; i < 5; i++) expect((await attempt(t, ADMIN, `wrong ${i}`, '10.0.0.1')).statusCode).toBe(401);
    expect(slept).toEqual([]);

    const limited = await attempt(t, ADMIN, ADMIN_PASSWORD, '10.0.0.1');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(250);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.json()).toMatchObject({ status: 429, instance: '/login' });

    // The user, from their own client, gets in: five failures for the username slow its next check by 0.5 s.
    const owner = await attempt(t, ADMIN, ADMIN_PASSWORD, '10.0.0.2');
    expect(owner.statusCode).toBe(200);
    expect(setCookies({ headers: owner.headers } as never).SVC_SESSION).toBeTruthy();
    expect(slept).toEqual([500]);
    // The stranger is refused for that username only.
    expect((await attempt(t, 'someone', 'whatever', '10.0.0.1')).statusCode).toBe(401);
  });

  it('refuses a client after twenty failures whatever the usernames, and no one else', async () => {
    const { t } = await start(backend);
    for (let i = 0; i < 20; i++) expect((await attempt(t, `user${i}`, 'wrong', '10.0.0.1')).statusCode).toBe(401);
    expect((await attempt(t, ADMIN, ADMIN_PASSWORD, '10.0.0.1')).statusCode).toBe(429);
    expect((await attempt(t, ADMIN, ADMIN_PASSWORD, '10.0.0.2')).statusCode).toBe(200);
  });

  it('slows down, never refuses, a username attacked from many clients; its owner still signs in', async () => {
    const { t, slept } = await start(backend);
    for (let i = 0; i < 10; i++) expect((await attempt(t, ADMIN, 'wrong', `10.0.${i}.1`)).statusCode).toBe(401);
    expect(slept).toEqual([500, 1000, 2000, 4000, 4000]);
    expect((await attempt(t, ADMIN, ADMIN_PASSWORD, '192.168.1.7')).statusCode).toBe(200);
    expect(slept.at(-1)).toBe(4000);
  });

  it('behind a trusted proxy (SVC_TRUST_PROXY) counts the forwarded client, and ignores the header from others', async () => {
    const { t } = await start(backend, { SVC_TRUST_PROXY: '10.9.9.9' });
    const viaProxy = (password: string, client: string) =>
      send(t, 'POST', '/login', '10.9.9.9', { username: ADMIN, password }, { 'x-forwarded-for': client });
    for (let i = 0; i < 5; i++) expect((await viaProxy(`wrong ${i}`, '203.0.113.7')).statusCode).toBe(401);
    expect((await viaProxy(ADMIN_PASSWORD, '203.0.113.7')).statusCode).toBe(429);
    // Another visitor behind the same proxy is another client.
    expect((await viaProxy(ADMIN_PASSWORD, '203.0.113.8')).statusCode).toBe(200);
    // A peer that is not the proxy cannot pick its client address: its own address is counted.
    const spoofed = (i: number) =>
      send(
        t,
        'POST',
        '/login',
        '10.0.0.5',
        { username: `x${i}`, password: 'wrong' },
        { 'x-forwarded-for': `198.51.100.${i}` },
      );
    for (let i = 0; i < 20; i++) expect((await spoofed(i)).statusCode).toBe(401);
    expect((await spoofed(99)).statusCode).toBe(429);
  });

  it("a sign-in resets its own client's count for that username", async () => {
    const { t } = await start(backend);
    for (let i = 0; i < 4; i++) await attempt(t, ADMIN, `wrong ${i}`, '10.0.0.1');
    expect((await attempt(t, ADMIN, ADMIN_PASSWORD, '10.0.0.1')).statusCode).toBe(200);
    for (let i = 0; i < 4; i++) expect((await attempt(t, ADMIN, `wrong ${i}`, '10.0.0.1')).statusCode).toBe(401);
    expect((await attempt(t, ADMIN, ADMIN_PASSWORD, '10.0.0.1')).statusCode).toBe(200);
  });

  it('guards HTTP Basic credentials with the same limits', async () => {
    const { t } = await start(backend, { SVC_BASIC_AUTH: 'true' });
    const basic = (password: string, remoteAddress: string) =>
      send(t, 'GET', '/api/v1alpha1/users', remoteAddress, undefined, {
        authorization: `Basic ${Buffer.from(`${ADMIN}:${password}`).toString('base64')}`,
      });
    for (let i = 0; i < 5; i++) expect((await basic(`wrong ${i}`, '10.0.0.1')).statusCode).toBe(401);
    const limited = await basic(ADMIN_PASSWORD, '10.0.0.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await basic(ADMIN_PASSWORD, '10.0.0.2')).statusCode).toBe(200);
  });

  it('guards the old password of a password change with the same limits', async () => {
    const { t } = await start(backend);
    const signedIn = await attempt(t, ADMIN, ADMIN_PASSWORD, '10.0.0.9');
    const cookies = setCookies({ headers: signedIn.headers } as never);
    const headers = {
      cookie: `SVC_SESSION=${cookies.SVC_SESSION}; XSRF-TOKEN=${cookies['XSRF-TOKEN']}`,
      'x-xsrf-token': cookies['XSRF-TOKEN']!,
    };
    const change = (oldPassword: string, remoteAddress: string) =>
      send(
        t,
        'PUT',
        `${CONSOLE}/users/-/password`,
        remoteAddress,
        { oldPassword, password: 'a new password' },
        headers,
      );
    for (let i = 0; i < 5; i++) expect((await change(`wrong ${i}`, '10.0.0.1')).statusCode).toBe(400);
    expect((await change(ADMIN_PASSWORD, '10.0.0.1')).statusCode).toBe(429);
    expect((await change(ADMIN_PASSWORD, '10.0.0.2')).statusCode).toBe(204);
  });
});

/**
 * A sign-in clock whose sleeps wait until the test wakes them, each at its time: the fake time then tells how long the
 * checks took, whatever the machine's speed.
 */
function manualClock() {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const sleeping: Array<{ at: number; wake: () => void }> = [];
  let mostAsleep = 0;
  return {
    clock: {
      now: () => now,
      sleep: (ms: number) =>
        new Promise<void>((wake) => {
          sleeping.push({ at: now + ms, wake });
          mostAsleep = Math.max(mostAsleep, sleeping.length);
        }),
    },
    now: () => now,
    asleep: () => sleeping.length,
    mostAsleep: () => mostAsleep,
    wakeNext() {
      sleeping.sort((a, b) => a.at - b.at);
      const next = sleeping.shift()!;
      now = Math.max(now, next.at);
      next.wake();
    },
  };
}

describe.each(BACKENDS)('parallel guesses behind a trusted proxy (%s)', (backend) => {
  it('are checked one at a time per username, each after its delay, however many clients send them', async () => {
    const fake = manualClock();
    t = await startTestServer({
      backend,
      pluginsDirs: [],
      env: { SVC_ADMIN_PASSWORD: ADMIN_PASSWORD, SVC_TRUST_PROXY: '10.9.9.9' },
      credentials: 'none',
      serverOptions: { login: { clock: fake.clock } },
    });
    const server = t;
    const guess = (i: number, client: string) =>
      send(
        server,
        'POST',
        '/login',
        '10.9.9.9',
        { username: ADMIN, password: `guess ${i}` },
        {
          'x-forwarded-for': client,
        },
      );
    const start = fake.now();
    let answered = 0;
    // 40 guesses at once, two from each of 20 clients.
    const guesses = Array.from({ length: 40 }, (_, i) =>
      guess(i, `203.0.113.${i % 20}`).then((response) => {
        answered++;
        return response.statusCode;
      }),
    );
    // Five are checked at once (no failure yet), then one per wake-up: the others wait their turn, not a delay each.
    for (let turn = 1; turn <= 35; turn++) {
      await eventually(() => fake.asleep() > 0 && answered >= 4 + turn, `guess ${5 + turn} waits`);
      expect(answered).toBe(4 + turn);
      fake.wakeNext();
    }
    expect(await Promise.all(guesses)).toEqual(Array(40).fill(401));
    expect(fake.mostAsleep()).toBe(1);
    // Together they took the sum of their delays: 0.5 s, 1 s, 2 s, then 4 s each.
    expect(fake.now() - start).toBe(3500 + 32 * 4000);
  });

  it("let the owner, from an address with no failures, in within the longest delay while strangers' guesses queue", async () => {
    const fake = manualClock();
    t = await startTestServer({
      backend,
      pluginsDirs: [],
      env: { SVC_ADMIN_PASSWORD: ADMIN_PASSWORD, SVC_TRUST_PROXY: '10.9.9.9' },
      credentials: 'none',
      serverOptions: { login: { clock: fake.clock } },
    });
    const server = t;
    const viaProxy = (password: string, client: string) =>
      send(server, 'POST', '/login', '10.9.9.9', { username: ADMIN, password }, { 'x-forwarded-for': client });
    const limiter = server.server.authn.limiter;
    const strangers = Array.from({ length: 30 }, (_, i) => viaProxy(`guess ${i}`, `198.51.100.${i % 10}`));
    // Ten checked: the first five at once, then five turns.
    for (let turn = 0; turn < 5; turn++) {
      await eventually(() => fake.asleep() > 0, 'a guess waits');
      fake.wakeNext();
    }
    await eventually(() => fake.asleep() > 0 && limiter.waitingFor(ADMIN) === 20, 'twenty guesses wait');
    const asked = fake.now();
    const owner = viaProxy(ADMIN_PASSWORD, '192.0.2.44');
    await eventually(() => limiter.waitingFor(ADMIN) === 21, "the owner's attempt waits");
    fake.wakeNext();
    const signedIn = await owner;
    expect(signedIn.statusCode).toBe(200);
    expect(fake.now() - asked).toBeLessThanOrEqual(4000);
    // The strangers' guesses still take their turns.
    for (let turn = 0; turn < 20; turn++) {
      await eventually(() => fake.asleep() > 0, 'a guess waits');
      fake.wakeNext();
    }
    expect((await Promise.all(strangers)).map((r) => r.statusCode)).toEqual(Array(30).fill(401));
  });

  it('count an IPv6 client by its /64 prefix', async () => {
    const { t } = await start(backend, { SVC_TRUST_PROXY: '10.9.9.9' });
    const viaProxy = (password: string, client: string) =>
      send(t, 'POST', '/login', '10.9.9.9', { username: ADMIN, password }, { 'x-forwarded-for': client });
    for (let i = 1; i <= 5; i++) expect((await viaProxy(`wrong ${i}`, `2001:db8:7:7::${i}`)).statusCode).toBe(401);
    // Another address of the same /64 is the same client; another /64 is another.
    expect((await viaProxy(ADMIN_PASSWORD, '2001:db8:7:7:abcd::99')).statusCode).toBe(429);
    expect((await viaProxy(ADMIN_PASSWORD, '2001:db8:7:8::1')).statusCode).toBe(200);
  });
});
