import { readFile } from 'node:fs/promises';
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, settingsFromArgs } from '../src/config.js';
import { BACKENDS, PERSONS, startTestServer, type TestServer } from './harness.js';
import { rawBytes, rawRequest } from './raw-http.js';

const PERMISSIONS = '/apis/api.console.svc.run/v1alpha1/users/-/permissions';

/**
 * Every answer says `X-Content-Type-Options: nosniff`, and every one that depends on the caller `Cache-Control:
 * no-store`; built files keep their own caching (issue 28 item 4).
 */
describe.each(BACKENDS)('the headers of every answer (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  }, 60_000);
  afterAll(() => t.close());

  it('answers about the caller, and errors, are nosniff and no-store', async () => {
    const answers = {
      list: await t.request('GET', PERSONS),
      permissions: await t.request('GET', PERMISSIONS),
      created: await t.request('POST', '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens', {
        spec: { name: 'headers', roles: ['super-role'] },
      }),
      anonymous: await t.anonymous('GET', PERSONS),
      notFound: await t.request('GET', `${PERSONS}/nobody`),
      badJson: await t.request('POST', PERSONS, '{', { 'content-type': 'application/json' }),
      unparsable: await t.anonymous('GET', '/apis/%zz'),
      healthz: await t.anonymous('GET', '/healthz'),
      version: await t.anonymous('GET', '/version'),
      watch: await t.request('GET', `${PERSONS}?watch=true&timeoutSeconds=1`),
    };
    expect(Object.values(answers).map((a) => a.status)).toEqual([200, 200, 201, 401, 404, 400, 400, 200, 200, 200]);
    for (const [name, answer] of Object.entries(answers)) {
      expect([name, answer.headers['x-content-type-options']]).toEqual([name, 'nosniff']);
      expect([name, answer.headers['cache-control']]).toEqual([name, 'no-store']);
    }
  });

  it("leaves the console's hashed files and plugin UI files cacheable, nosniff too", async () => {
    const page = await t.anonymous('GET', '/console/');
    const asset = /src="\/console\/(assets\/[^"]+\.js)"/.exec(page.text)![1]!;
    const file = await t.anonymous('GET', `/console/${asset}`);
    expect(file.status).toBe(200);
    expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    const uis = await t.request('GET', '/apis/api.console.svc.run/v1alpha1/plugins/-/uis');
    const entry = await t.anonymous('GET', uis.body.items[0].entry);
    expect(entry.status).toBe(200);
    expect(entry.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(entry.headers['x-content-type-options']).toBe('nosniff');
  });
});

/** What the HTTP parser refuses is answered without Fastify; it carries the headers too. */
describe('the HTTP parser’s own answers', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
    await t.server.listen();
  }, 60_000);
  afterAll(() => t.close());

  it('are nosniff and no-store', async () => {
    const refused = await rawBytes(t.server.url!, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n');
    expect(refused.status).toBe(400);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    expect(refused.headers['cache-control']).toBe('no-store');
  });
});

function httpsGet(url: string, ca: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
    https
      .get(url, { ca, headers, servername: 'localhost' }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
      })
      .on('error', reject);
  });
}

/** Strict-Transport-Security on the HTTPS listener only, and not to a localhost name (issue 28 item 6). */
describe('HSTS', () => {
  let t: TestServer;
  let ca: string;
  beforeAll(async () => {
    t = await startTestServer({ env: { SVC_HTTPS_PORT: '0', SVC_TLS_HOSTS: 'svc.example.test' } });
    await t.server.listen();
    ca = await readFile(t.server.caFile!, 'utf8');
  }, 60_000);
  afterAll(() => t.close());

  it('is sent on HTTPS answers, errors included, and never on plain HTTP', async () => {
    for (const path of ['/healthz', PERSONS, '/nowhere']) {
      const secure = await httpsGet(`${t.server.httpsUrl}${path}`, ca, { host: 'svc.example.test' });
      expect([path, secure.headers['strict-transport-security']]).toEqual([path, 'max-age=31536000']);
      const byAddress = await httpsGet(`${t.server.httpsUrl}${path}`, ca);
      expect([path, byAddress.headers['strict-transport-security']]).toEqual([path, 'max-age=31536000']);
      const plain = await rawRequest(t.server.url!, 'GET', path, { headers: { host: 'svc.example.test' } });
      expect([path, plain.headers['strict-transport-security']]).toEqual([path, undefined]);
    }
  });

  it('is not sent to a localhost name, where it would hold every local port to HTTPS', async () => {
    const port = new URL(t.server.httpsUrl!).port;
    for (const host of ['localhost', `localhost:${port}`, 'app.localhost']) {
      const answer = await httpsGet(`${t.server.httpsUrl}/healthz`, ca, { host });
      expect([host, answer.headers['strict-transport-security']]).toEqual([host, undefined]);
    }
  });
});

/** The Host header is checked against SVC_ALLOWED_HOSTS or its safe default (issue 28 item 5). */
describe.each(BACKENDS)('allowed hosts (%s)', (backend) => {
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string>) => {
    const t = await startTestServer({ backend, env, credentials: 'none' });
    servers.push(t);
    return t;
  };
  afterAll(async () => {
    for (const t of servers) await t.close();
  });
  const statusFor = async (t: TestServer, host: string, path = '/healthz') =>
    (await t.anonymous('GET', path, undefined, { host })).status;

  it('on a loopback address, by default, answers loopback names, the listen host and TLS hosts only', async () => {
    const t = await start({ SVC_HOST: '127.0.0.1', SVC_TLS_HOSTS: 'svc.example.test' });
    for (const host of ['localhost', 'LOCALHOST:8090', '127.0.0.1', '127.0.0.1:8090', '[::1]:8090', '127.9.9.9']) {
      expect([host, await statusFor(t, host)]).toEqual([host, 200]);
    }
    expect(await statusFor(t, 'svc.example.test:8443')).toBe(200);
    for (const host of ['attacker.example', 'attacker.example:8090', 'localhost.attacker.example', '10.0.0.1']) {
      const refused = await t.anonymous('GET', '/version', undefined, { host });
      expect([host, refused.status]).toEqual([host, 400]);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.detail).toBe(
        `the Host header "${host}" is not a name this server answers to; allow it with SVC_ALLOWED_HOSTS ` +
          '(--allowed-hosts), a comma-separated list of names and addresses (* allows any)',
      );
    }
    // Anonymous writes are refused by the Host before anything else.
    const login = await t.anonymous('POST', '/login', { username: 'a', password: 'b' }, { host: 'attacker.example' });
    expect(login.status).toBe(400);
  });

  it('on any other address answers any host, unless SVC_ALLOWED_HOSTS names them', async () => {
    const open = await start({ SVC_HOST: '0.0.0.0' });
    expect(await statusFor(open, 'anything.example')).toBe(200);
    const listed = await start({ SVC_HOST: '0.0.0.0', SVC_ALLOWED_HOSTS: 'svc.example.com, 192.0.2.7,[2001:db8::1]' });
    for (const host of [
      'svc.example.com',
      'SVC.example.com.:443',
      '192.0.2.7:8090',
      '[2001:db8::1]:8090',
      'localhost',
    ]) {
      expect([host, await statusFor(listed, host)]).toEqual([host, 200]);
    }
    expect(await statusFor(listed, 'other.example.com')).toBe(400);
    expect(await statusFor(listed, 'sub.svc.example.com')).toBe(400);
  });

  it('answers any host on a loopback address with SVC_ALLOWED_HOSTS=*', async () => {
    const any = await start({ SVC_ALLOWED_HOSTS: '*' });
    expect(await statusFor(any, 'attacker.example')).toBe(200);
  });
});

describe('the allowed hosts setting', () => {
  it('is read from SVC_ALLOWED_HOSTS or --allowed-hosts, and refuses a port or a malformed name', () => {
    expect(loadConfig({}).allowedHosts).toBeUndefined();
    expect(loadConfig({ SVC_ALLOWED_HOSTS: ' a.example ,B.example,[::1], 10.0.0.1' }).allowedHosts).toEqual([
      'a.example',
      'b.example',
      '[::1]',
      '10.0.0.1',
    ]);
    expect(loadConfig(settingsFromArgs(['--allowed-hosts', '*'], {})).allowedHosts).toEqual(['*']);
    expect(loadConfig({ SVC_ALLOWED_HOSTS: '2001:db8::1,svc-1.example.com.' }).allowedHosts).toEqual([
      '2001:db8::1',
      'svc-1.example.com.',
    ]);
    for (const bad of ['a.example:8090', 'cafe.be:80', '[::1]:8090', 'http://a.example', 'a b', 'a/b', '-a.example']) {
      expect(() => loadConfig({ SVC_ALLOWED_HOSTS: bad })).toThrow(
        `SVC_ALLOWED_HOSTS must be comma-separated host names or addresses without a port (or *), got "${bad}"`,
      );
    }
  });
});

/** Over a socket, as a DNS-rebinding page's request arrives: its own name in Host. */
describe('a request naming another host over a socket', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
    await t.server.listen();
  }, 60_000);
  afterAll(() => t.close());

  it('is refused on plain requests and WebSocket upgrades alike', async () => {
    const plain = await rawRequest(t.server.url!, 'GET', '/version', { headers: { host: 'rebound.example:8090' } });
    expect(plain.status).toBe(400);
    expect(plain.body.detail).toMatch(/SVC_ALLOWED_HOSTS/);
    const upgrade = await rawRequest(t.server.url!, 'GET', PERSONS, {
      headers: {
        host: 'rebound.example',
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    expect(upgrade.status).toBe(400);
    expect(upgrade.body.detail).toMatch(/SVC_ALLOWED_HOSTS/);
    expect((await rawRequest(t.server.url!, 'GET', '/version')).status).toBe(200);
  });
});
