/**
 * Replicas as users run them: `svc serve` processes (the built CLI) on one PostgreSQL schema, each with its own data
 * directory, talked to over HTTP. Killed with SIGKILL when a test wants a crash.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropSchema, PEOPLE_PLUGINS, PG_URL, TEST_ADMIN } from './harness.js';
import { spawnServe } from './serve-process.js';

export interface Replica {
  id: string;
  url: string;
  child: ChildProcess;
  dataDir: string;
  /** Everything the process printed (its log at info level). */
  output(): string;
  /** SIGKILL, and waits for the process to be gone. */
  kill(): Promise<void>;
  /** Fetch with the given headers merged. */
  fetch(pathAndQuery: string, init?: RequestInit & { headers?: Record<string, string> }): Promise<Response>;
}

export interface ReplicaSet {
  schema: string;
  replicas: Replica[];
  start(id: string, env?: Record<string, string>): Promise<Replica>;
  close(): Promise<void>;
}

export async function replicaSet(name: string): Promise<ReplicaSet> {
  const schema = `r_${name}_${process.pid}_${Date.now().toString(36)}`;
  const replicas: Replica[] = [];
  const dirs: string[] = [];
  const set: ReplicaSet = {
    schema,
    replicas,
    async start(id, env = {}) {
      const dataDir = await mkdtemp(path.join(tmpdir(), `svc-replica-${id}-`));
      dirs.push(dataDir);
      const replica = await spawnReplica(id, dataDir, schema, env);
      replicas.push(replica);
      return replica;
    },
    async close() {
      await Promise.all(replicas.map((replica) => replica.kill()));
      await dropSchema(schema);
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    },
  };
  return set;
}

async function spawnReplica(
  id: string,
  dataDir: string,
  schema: string,
  env: Record<string, string>,
): Promise<Replica> {
  const served = await spawnServe({
    SVC_DATA_DIR: dataDir,
    SVC_DATABASE_URL: PG_URL,
    SVC_DATABASE_SCHEMA: schema,
    SVC_REPLICA_ID: id,
    SVC_PLUGINS_DIR: PEOPLE_PLUGINS,
    SVC_LOG_LEVEL: 'info',
    SVC_LOG_FORMAT: 'json',
    SVC_ACCESS_LOG: 'off',
    SVC_ADMIN_PASSWORD: TEST_ADMIN.password,
    ...env,
  });
  return {
    id,
    url: served.url,
    child: served.child,
    dataDir,
    output: served.output,
    kill: served.kill,
    fetch: (pathAndQuery, init = {}) => fetch(`${served.url}${pathAndQuery}`, init),
  };
}

/** Signs in on one replica; returns the headers a browser would send on later requests (to any replica). */
export async function signIn(
  replica: Replica,
  credentials: { username: string; password: string } = TEST_ADMIN,
): Promise<Record<string, string>> {
  const response = await replica.fetch('/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  if (response.status !== 200) throw new Error(`sign-in failed on ${replica.id}: ${response.status}`);
  const cookies = response.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))!.slice('XSRF-TOKEN='.length);
  return { cookie: cookies.join('; '), 'x-xsrf-token': xsrf };
}

/** A JSON request; answers the status and the parsed body. */
export async function call(
  replica: Replica,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await replica.fetch(pathAndQuery, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The replica id holding the controllers' lease, from the store. */
export async function leaderOf(schema: string): Promise<{ holder: string; epoch: number } | undefined> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT holder, epoch FROM ${schema}.leases WHERE name = 'controllers'`);
    return rows[0] ? { holder: rows[0].holder as string, epoch: Number(rows[0].epoch) } : undefined;
  } finally {
    await client.end();
  }
}
