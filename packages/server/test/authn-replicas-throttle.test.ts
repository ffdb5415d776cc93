/**
 * The sign-in throttle across replicas (issue 28, item 4): two servers on one PostgreSQL schema count each other's
 * failures, so a client gets its five failures per username once, not once per replica, and a right password on one
 * replica forgets that client's failures on the other too. Sign-in failures never go into a backup.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_PASSWORD } from './authn-helpers.js';
import { eventually } from './eventually.js';
import { dropSchema, PG_URL, startTestServer, type TestServer } from './harness.js';
import { svc } from './offline-cli.js';

const started: TestServer[] = [];
let schema = '';
afterEach(async () => {
  for (const server of started.splice(0)) await server.close({ keepData: true });
  await dropSchema(schema);
});

/** Two replicas of one store; their sign-in slow-downs are not waited for. */
async function twoReplicas(): Promise<[TestServer, TestServer]> {
  schema = `t_throttle_${Math.random().toString(36).slice(2, 10)}`;
  const start = () =>
    startTestServer({
      backend: 'postgres',
      schema,
      pluginsDirs: [],
      env: { SVC_ADMIN_PASSWORD: ADMIN_PASSWORD },
      credentials: 'none',
      serverOptions: { login: { clock: { sleep: async () => undefined } } },
    });
  const a = await start();
  started.push(a);
  const b = await start();
  started.push(b);
  return [a, b];
}

const attempt = (server: TestServer, password: string, remoteAddress: string) =>
  server.server.app.inject({
    method: 'POST',
    url: '/login',
    payload: { username: ADMIN, password },
    remoteAddress,
  });

describe('the sign-in throttle on replicas of one PostgreSQL store', () => {
  it("counts a client's failures on every replica against one limit", async () => {
    const [a, b] = await twoReplicas();
    for (let i = 0; i < 3; i++) expect((await attempt(a, `wrong ${i}`, '10.0.0.1')).statusCode).toBe(401);
    await eventually(() => b.server.authn.limiter.countsAgainst('10.0.0.1', ADMIN).pair === 3, 'b counts three');
    for (let i = 0; i < 2; i++) expect((await attempt(b, `wrong ${i}`, '10.0.0.1')).statusCode).toBe(401);
    await eventually(() => a.server.authn.limiter.countsAgainst('10.0.0.1', ADMIN).pair === 5, 'a counts five');
    // Five failures in all: refused on both, the right password included.
    for (const server of [a, b]) {
      const refused = await attempt(server, ADMIN_PASSWORD, '10.0.0.1');
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBeDefined();
    }
    // The username's failures slow its checks on both (each tally is a notice of its own: wait until both heard all
    // five); its owner, elsewhere, still signs in on either.
    for (const [server, name] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      await eventually(
        () => server.server.authn.limiter.countsAgainst('10.0.0.1', ADMIN).username === 5,
        `${name} counts five`,
      );
    }
    expect(a.server.authn.limiter.delayFor(ADMIN)).toBe(500);
    expect(b.server.authn.limiter.delayFor(ADMIN)).toBe(500);
    expect((await attempt(b, ADMIN_PASSWORD, '10.0.0.2')).statusCode).toBe(200);
  });

  it("forgets a client's failures on every replica when it signs in on one", async () => {
    const [a, b] = await twoReplicas();
    for (let i = 0; i < 4; i++) expect((await attempt(a, `wrong ${i}`, '10.0.0.7')).statusCode).toBe(401);
    await eventually(() => b.server.authn.limiter.countsAgainst('10.0.0.7', ADMIN).pair === 4, 'b counts four');
    expect((await attempt(b, ADMIN_PASSWORD, '10.0.0.7')).statusCode).toBe(200);
    await eventually(() => a.server.authn.limiter.countsAgainst('10.0.0.7', ADMIN).pair === 0, 'a forgets them');
    // Four more failures on a are four, not eight: the fifth attempt is still let through.
    for (let i = 0; i < 4; i++) expect((await attempt(a, `again ${i}`, '10.0.0.7')).statusCode).toBe(401);
    expect((await attempt(a, ADMIN_PASSWORD, '10.0.0.7')).statusCode).toBe(200);
  });

  it('keeps sign-in failures out of a backup', async () => {
    const [a] = await twoReplicas();
    for (let i = 0; i < 2; i++) expect((await attempt(a, `wrong ${i}`, '10.0.0.9')).statusCode).toBe(401);
    // The replica writes its record a moment after the failure's answer.
    const kinds = () => a.server.store.secrets.kinds();
    await eventually(async () => (await kinds()).includes('security.svc.run/sign-in-failures'), 'the failures record');
    const backup = await svc(['export', '--no-plugin-code'], {
      env: { SVC_DATABASE_URL: PG_URL, SVC_DATABASE_SCHEMA: schema },
    });
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain('security.svc.run/credentials');
    expect(backup.stdout).not.toContain('sign-in-failures');
  });
});
