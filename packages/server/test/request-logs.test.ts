import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE } from './auth-harness.js';
import {
  capturingLogger,
  PEOPLE_PLUGINS,
  PERSONS,
  person,
  startTestServer,
  TEST_ADMIN,
  type TestServer,
} from './harness.js';

const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const THROWS = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-bad/throws');

type Line = Record<string, any>;

describe('logs people can read', () => {
  let t: TestServer;
  let log: ReturnType<typeof capturingLogger>;
  let plugins: string;
  /** The access line of the request that answered with this id. */
  const accessLine = (id: unknown): Line | undefined =>
    log.lines().find((line) => line.msg === 'request completed' && line.reqId === id);

  beforeAll(async () => {
    // The people plugin, and one whose start throws (a copy: its fixture folder holds plugins that hang too).
    plugins = await mkdtemp(path.join(tmpdir(), 'svc-logs-'));
    await cp(THROWS, path.join(plugins, 'throws'), { recursive: true });
    log = capturingLogger();
    t = await startTestServer({ logger: log.logger, pluginsDirs: [PEOPLE_PLUGINS, plugins] });
  });
  afterAll(async () => {
    await t?.close();
    await rm(plugins, { recursive: true, force: true });
  });

  it('writes one line per request: method, path without the query, status, duration, user, request id', async () => {
    expect((await t.request('POST', PERSONS, person('log-reader-1'))).status).toBe(201);
    const ok = await t.request('GET', `${PERSONS}?fieldSelector=spec.name=Person%20log-reader-1&size=5`);
    expect(ok.status).toBe(200);
    const line = accessLine(ok.headers['x-request-id']);
    expect(line).toMatchObject({
      level: 30,
      method: 'GET',
      path: PERSONS,
      status: 200,
      user: TEST_ADMIN.username,
      responseTime: expect.any(Number),
    });
    expect(JSON.stringify(line)).not.toContain('fieldSelector');
    expect(
      log.lines().filter((l) => l.reqId === ok.headers['x-request-id'] && l.msg === 'request completed'),
    ).toHaveLength(1);
  });

  it('logs a 404 and a 401 with their caller, and names the same id in the header, the body and the line', async () => {
    const missing = await t.request('GET', `${PERSONS}/nobody`);
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.headers['x-request-id']).toMatch(UUID);
    expect(missing.body.requestId).toBe(missing.headers['x-request-id']);
    expect(accessLine(missing.body.requestId)).toMatchObject({
      method: 'GET',
      path: `${PERSONS}/nobody`,
      status: 404,
      user: TEST_ADMIN.username,
    });

    const denied = await t.anonymous('GET', PERSONS);
    expect(denied.status).toBe(401);
    expect(denied.body.requestId).toBe(denied.headers['x-request-id']);
    expect(accessLine(denied.body.requestId)).toMatchObject({
      method: 'GET',
      path: PERSONS,
      status: 401,
      user: 'system:anonymous',
    });
  });

  it('names the request id in a Kubernetes Status too', async () => {
    const missing = await t.request('GET', `${PERSONS}/nobody`, undefined, { accept: 'application/json' });
    expect(missing.body).toMatchObject({ kind: 'Status', code: 404, requestId: missing.headers['x-request-id'] });
  });

  it("echoes a client's request id when it is a short safe token, and replaces any other", async () => {
    const cases: Array<[string, boolean]> = [
      ['trace-42.a_B', true],
      ['x'.repeat(64), true],
      ['x'.repeat(65), false],
      ['has space', false],
      ['new\\nline', false],
      ['quote"', false],
      ['', false],
    ];
    for (const [given, kept] of cases) {
      const response = await t.anonymous('GET', `${PERSONS}/nobody`, undefined, { 'x-request-id': given });
      const id = response.headers['x-request-id'];
      if (kept) expect(id, given).toBe(given);
      else expect(id, given).toMatch(UUID);
      expect(response.body.requestId, given).toBe(id);
      expect(accessLine(id), given).toBeDefined();
    }
  });

  it('never writes a password, a cookie, a CSRF token, an Authorization header or an access token', async () => {
    const signIn = await t.anonymous('POST', '/login', {
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
    });
    expect(signIn.status).toBe(200);
    const wrong = await t.anonymous('POST', '/login', { username: TEST_ADMIN.username, password: 'wrong-Secret-9' });
    expect(wrong.status).toBe(401);
    const created = await t.request('POST', TOKENS, { spec: { name: 'logs', roles: ['super-role'] } });
    expect(created.status).toBe(201);
    const token = created.body.metadata.annotations['security.svc.run/access-token'] as string;
    const withToken = await t.anonymous('GET', PERSONS, undefined, { authorization: `Bearer ${token}` });
    expect(withToken.status).toBe(200);
    const forged = 'pat_forged0123456789forged0123456789';
    expect((await t.anonymous('GET', PERSONS, undefined, { authorization: `Bearer ${forged}` })).status).toBe(401);
    const basic = Buffer.from(`${TEST_ADMIN.username}:${TEST_ADMIN.password}`).toString('base64');
    await t.anonymous('GET', PERSONS, undefined, { authorization: `Basic ${basic}` });

    expect(accessLine(withToken.headers['x-request-id'])?.user).toBe(TEST_ADMIN.username);
    const written = log.lines().map((line) => JSON.stringify(line));
    const cookieValues = t.adminHeaders.cookie!.split('; ').map((pair) => pair.slice(pair.indexOf('=') + 1));
    const secrets = [
      TEST_ADMIN.password,
      'wrong-Secret-9',
      token,
      forged,
      basic,
      t.adminHeaders['x-xsrf-token']!,
      ...cookieValues,
    ];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(written.filter((line) => line.includes(secret))).toEqual([]);
    }
  });

  it('logs each plugin phase change: which plugin, from, to, and why a start failed', () => {
    const transitions = log
      .lines()
      .filter((line) => line.from !== undefined && line.to !== undefined)
      .map(({ level, plugin, from, to, reason }) => ({ level, plugin, from, to, reason }));
    expect(transitions).toEqual(
      expect.arrayContaining([
        { level: 30, plugin: 'people', from: 'RESOLVED', to: 'STARTING', reason: undefined },
        { level: 30, plugin: 'people', from: 'STARTING', to: 'STARTED', reason: undefined },
        { level: 30, plugin: 'throws', from: 'RESOLVED', to: 'STARTING', reason: undefined },
        {
          level: 30,
          plugin: 'throws',
          from: 'STARTING',
          to: 'FAILED',
          reason: 'database of the plugin is unreachable',
        },
      ]),
    );
  });

  it('logs the stop when a plugin is disabled', async () => {
    const state = await t.request('PUT', `${CONSOLE}/plugins/people/plugin-state`, { enable: false });
    expect(state.body.status.phase).toBe('STOPPED');
    const people = log
      .lines()
      .filter((line) => line.plugin === 'people' && line.to !== undefined)
      .map(({ from, to }) => `${from} -> ${to}`);
    // One line per phase the Plugin's status records: a stop is one write, from STARTED to STOPPED.
    expect(people.slice(-1)).toEqual(['STARTED -> STOPPED']);
  });
});

describe('the access log turned off (SVC_ACCESS_LOG=false)', () => {
  it('writes no request lines, and still gives every answer its request id', async () => {
    const log = capturingLogger();
    const t = await startTestServer({ logger: log.logger, env: { SVC_ACCESS_LOG: 'false' } });
    try {
      const response = await t.request('GET', `${PERSONS}/nobody`);
      expect(response.body.requestId).toBe(response.headers['x-request-id']);
      expect(log.lines().filter((line) => line.msg === 'request completed')).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('index builds', () => {
  it('say what they built: one line per model (debug when quick, info when it took seconds)', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const t = await startTestServer({ logger });
    try {
      const built = lines
        .map((line) => JSON.parse(line))
        .filter((line) => line.model === 'people.svc.run/v1alpha1 Person');
      expect(built).toEqual([
        expect.objectContaining({
          objects: expect.any(Number),
          msg: expect.stringMatching(/^built indexes of people.svc.run\/v1alpha1 Person: \d+ objects in \d+ ms$/),
        }),
      ]);
    } finally {
      await t.close();
    }
  });
});
