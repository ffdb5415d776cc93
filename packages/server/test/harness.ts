import { mkdtemp, rm } from 'node:fs/promises';
import type { OutgoingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createServer, type Server, type ServerOptions } from '../src/main.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const PEOPLE_PLUGINS = path.join(REPO, 'plugins');
export const PG_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const PERSONS = '/apis/people.svc.run/v1alpha1/persons';

export type Backend = 'sqlite' | 'postgres';
export const BACKENDS: Backend[] = ['sqlite', 'postgres'];

/** The administrator the harness creates on first boot (unless a test sets SVC_ADMIN_PASSWORD itself). */
export const TEST_ADMIN = { username: 'admin', password: 'admin-password-for-tests' };

/** The scrypt cost of in-process test servers; hashes record their parameters, so they verify as any other. */
export const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };

export interface TestServer {
  server: Server;
  dataDir: string;
  /** A request as the signed-in administrator (session cookie and CSRF header), unless the server was started with
   * `credentials: 'none'` or the request carries its own `cookie` or `authorization` header. */
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  /** A request with no credentials at all. */
  anonymous(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  /** The administrator's session headers, for clients that open their own sockets ({} with `credentials: 'none'`). */
  adminHeaders: Record<string, string>;
  /** Stops the server; `keepData` keeps the PostgreSQL schema for a restart (SQLite data lives in SVC_DATA_DIR). */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface TestResponse {
  status: number;
  /** As Fastify's inject returns them (a number for content-length). */
  headers: OutgoingHttpHeaders;
  body: any;
  text: string;
}

/**
 * Starts a real server in-process (real store, real plugins) and talks to it with Fastify's inject: no sockets, so
 * tests run fast and in parallel. PostgreSQL servers get a fresh schema each, dropped on close.
 */
export async function startTestServer(
  options: {
    backend?: Backend;
    pluginsDirs?: string[];
    env?: Record<string, string>;
    logger?: pino.Logger;
    pluginStartTimeoutMs?: number;
    /** Further options of createServer (watch limits, compaction period, reconciler backoff). */
    serverOptions?: Omit<ServerOptions, 'logger' | 'databaseSchema'>;
    /** `admin` (default): requests go as the signed-in administrator; `none`: as whatever the test sends. */
    credentials?: 'admin' | 'none';
    /** PostgreSQL schema; give the same one (and the same SVC_DATA_DIR in `env`) to restart on the same data. */
    schema?: string;
  } = {},
): Promise<TestServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-test-'));
  const schema = options.schema ?? `t_${Math.random().toString(36).slice(2, 10)}`;
  const backend = options.backend ?? 'sqlite';
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    // Tests that want the HTTPS listener turn it on (with port 0); many servers run at once.
    SVC_HTTPS_PORT: 'off',
    SVC_PLUGINS_DIR: (options.pluginsDirs ?? [PEOPLE_PLUGINS]).join(':'),
    SVC_DATABASE_URL: backend === 'postgres' ? PG_URL : undefined,
    SVC_ADMIN_PASSWORD: TEST_ADMIN.password,
    ...options.env,
  });
  const server = await createServer(config, {
    logger: options.logger ?? pino({ level: 'silent' }),
    databaseSchema: schema,
    pluginStartTimeoutMs: options.pluginStartTimeoutMs,
    ...options.serverOptions,
    // Real scrypt at a test's cost (1.6 ms a hash here, against 160 ms at the default): every server signs its
    // administrator in, and the suite starts hundreds. The default cost has its own test (passwords.test.ts).
    login: { passwordHashing: TEST_SCRYPT, ...options.serverOptions?.login },
  });
  const send = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const isRaw = typeof body === 'string' || Buffer.isBuffer(body);
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      payload: body === undefined ? undefined : isRaw ? (body as string) : JSON.stringify(body),
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    });
    let parsed: unknown;
    try {
      parsed = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body: parsed, text: response.body };
  };
  const adminHeaders =
    options.credentials === 'none' ? {} : await signInHeaders(send, config.adminUsername, config.adminPassword!);
  return {
    server,
    dataDir,
    adminHeaders,
    request(method, url, body, headers = {}) {
      const own = Object.keys(headers).some((h) => h.toLowerCase() === 'cookie' || h.toLowerCase() === 'authorization');
      return send(method, url, body, own ? headers : { ...adminHeaders, ...headers });
    },
    anonymous: send,
    async close({ keepData = false } = {}) {
      await server.close();
      if (backend === 'postgres' && !keepData) await dropSchema(schema);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Signs in through `POST /login` and returns the headers a browser would send: the cookies and the CSRF token. The one
 * sign-in of the test helpers (auth-harness.ts and authn-helpers.ts build on it).
 */
export async function signInHeaders(
  send: (method: string, url: string, body?: unknown) => Promise<TestResponse>,
  username: string,
  password: string,
): Promise<Record<string, string>> {
  const response = await send('POST', '/login', { username, password });
  if (response.status !== 200) throw new Error(`sign-in of ${username} failed: ${response.status} ${response.text}`);
  const cookies = ([] as string[]).concat(response.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!);
  const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))?.slice('XSRF-TOKEN='.length) ?? '';
  return { cookie: cookies.join('; '), 'x-xsrf-token': xsrf };
}

/** A personal access token of the administrator holding super-role, for clients that send a bearer token. */
export async function superAdminToken(t: TestServer, name: string): Promise<string> {
  const made = await t.request('POST', '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens', {
    spec: { name, roles: ['super-role'] },
  });
  if (made.status !== 201) throw new Error(`making token ${name} failed: ${made.status} ${made.text}`);
  return made.body.metadata.annotations['security.svc.run/access-token'] as string;
}

/** What a Plugin's status reports (its phase, and the Ready condition's reason and message), read over HTTP. */
export async function pluginReport(
  t: TestServer,
  name: string,
): Promise<{ phase?: string; reason?: string; message?: string }> {
  const { body } = await t.request('GET', `/apis/plugin.svc.run/v1alpha1/plugins/${name}`);
  const ready = body.status?.conditions?.find((condition: { type: string }) => condition.type === 'Ready');
  return { phase: body.status?.phase, reason: ready?.reason, message: ready?.message };
}

export async function dropSchema(schema: string) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

export function person(name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>) {
  return {
    apiVersion: 'people.svc.run/v1alpha1',
    kind: 'Person',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { name: `Person ${name}`, age: 30, gender: 'FEMALE', ...spec },
  };
}

/** A RoleBinding of `role` to local users and groups (users first), as the API takes it. */
export function roleBinding(
  name: string,
  role: string,
  subjects: { users?: string[]; groups?: string[] },
  labels?: Record<string, string>,
) {
  const of = (kind: 'User' | 'Group') => (subject: string) => ({ apiGroup: '', kind, name: subject });
  return {
    apiVersion: 'v1alpha1',
    kind: 'RoleBinding',
    metadata: { name, ...(labels ? { labels } : {}) },
    roleRef: { apiGroup: '', kind: 'Role', name: role },
    subjects: [...(subjects.users ?? []).map(of('User')), ...(subjects.groups ?? []).map(of('Group'))],
  };
}

/** A pino logger whose lines are kept in memory, to assert on warnings. */
export function capturingLogger(level = 'info'): {
  logger: pino.Logger;
  lines: () => Array<Record<string, unknown>>;
} {
  const lines: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(line) });
  return { logger, lines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/**
 * Waits (polling, bounded) until the people plugin's controller has finished with every person: each has its
 * farewell finalizer and a Ready status for its current spec. Tests that compare versions or snapshots call it first,
 * since the controller writes right after each create.
 */
export async function peopleSettled(t: TestServer, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await t.request('GET', PERSONS);
    const settled = (body?.items ?? []).every(
      (p: any) =>
        p.metadata.deletionTimestamp === undefined &&
        p.metadata.finalizers?.includes('people.svc.run/farewell') &&
        p.status?.conditions?.some(
          (c: any) => c.type === 'Ready' && c.message?.includes(p.spec?.name ?? p.metadata.name),
        ),
    );
    if (settled) return;
    if (Date.now() > deadline) throw new Error('timed out waiting for the people controller to settle');
    await new Promise((r) => setTimeout(r, 10));
  }
}
