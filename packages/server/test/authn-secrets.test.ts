/**
 * Issue 13, item 9: password hashes, session records and token digests are kept outside the change history that
 * watches replay, and a data directory or database written the old way has them moved out on boot.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf } from '../src/authn/secrets.js';
import { openPostgresStore } from '../src/store/postgres.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import type { Change, Store } from '../src/store/types.js';
import { ADMIN, ADMIN_PASSWORD, type Browser, bearer, createUser, signIn, startAuthServer } from './authn-helpers.js';
import { BACKENDS, type Backend, PG_URL, startTestServer, type TestServer } from './harness.js';

const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const CONSOLE = '/apis/api.console.svc.run/v1alpha1';
const SECRET_KINDS = ['security.svc.run/credentials', 'security.svc.run/sessions', 'security.svc.run/tokendigests'];

/** Every byte the history holds, event by event: names and values, old and new. */
async function historyText(store: Store): Promise<string[]> {
  const changes: Change[] = await store.changesSince(await store.oldestResumableRevision());
  return changes.map((c) => `${c.resource}/${c.name} ${c.value.toString()} ${c.prevValue?.toString() ?? ''}`);
}

/** Signs alice in (a session) and has her make a token; returns the secrets whose traces must stay out of the history. */
async function aliceWithSessionAndToken(t: TestServer, admin: Browser) {
  expect((await createUser(admin, 'alice', 'alice password 1')).status).toBe(201);
  const alice = await signIn(t, 'alice', 'alice password 1');
  const changed = await alice.request('PUT', `${CONSOLE}/users/-/password`, {
    oldPassword: 'alice password 1',
    password: 'alice password 2',
  });
  expect(changed.status).toBe(204);
  const created = await alice.request('POST', TOKENS, { spec: { name: 'ci', roles: [] } });
  expect(created.status).toBe(201);
  const token: string = created.body.metadata.annotations['security.svc.run/access-token'];
  return { alice, token, traces: ['scrypt$', digestOf(token), digestOf(alice.sessionCookie), digestOf(alice.xsrf)] };
}

describe.each(BACKENDS)('secrets stay out of the change history (%s)', (backend: Backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startAuthServer({}, [], backend);
  });
  afterAll(() => t?.close());

  it('after creating a user, signing in, changing a password and making a token, no event holds a hash or digest', async () => {
    const admin = await signIn(t, ADMIN, ADMIN_PASSWORD);
    const { token, traces } = await aliceWithSessionAndToken(t, admin);
    expect((await t.request('GET', TOKENS, undefined, bearer(token))).status).toBe(200);

    const history = await historyText(t.server.store);
    expect(history.length).toBeGreaterThan(0);
    for (const event of history) {
      for (const trace of traces) expect(event).not.toContain(trace);
      expect(event).not.toMatch(/^security\.svc\.run\/(credentials|sessions|tokendigests)\//);
    }
    for (const kind of SECRET_KINDS) expect(await t.server.store.count(kind)).toBe(0);
    // They are kept all the same, beside the history.
    expect((await t.server.store.secrets.get(SECRET_KINDS[0]!, 'alice'))?.toString()).toMatch(
      /"passwordHash":"scrypt\$/,
    );
  });
});

describe.each(BACKENDS)('boot on data written the old way (%s)', (backend: Backend) => {
  let work: string;
  const schema = `t_secrets_${Math.random().toString(36).slice(2, 8)}`;
  const boot = () =>
    startTestServer({
      backend,
      pluginsDirs: [],
      env: { SVC_ADMIN_PASSWORD: ADMIN_PASSWORD, SVC_DATA_DIR: path.join(work, 'data') },
      schema,
      credentials: 'none',
    });
  const openStore = async (): Promise<Store> =>
    backend === 'sqlite'
      ? openSqliteStore({ path: path.join(work, 'data', 'svc.db') })
      : openPostgresStore({ connectionString: PG_URL, schema });

  /** What an earlier version left: each secret an object in the history (written twice, so there are old values too),
   * and no secrets table. */
  async function rewriteTheOldWay(): Promise<void> {
    const store = await openStore();
    for (const kind of SECRET_KINDS) {
      const records: Array<[string, Buffer]> = [];
      for await (const batch of store.secrets.scan(kind)) records.push(...batch);
      for (const [name, value] of records) {
        const created = await store.create(kind, name, () => value);
        await store.update(kind, name, created.revision, () => value);
      }
    }
    // Two events per credential (alice's, the administrator's): the old layout is really there.
    expect((await historyText(store)).filter((event) => event.includes('scrypt$'))).toHaveLength(4);
    await store.close();
    if (backend === 'sqlite') {
      const db = new Database(path.join(work, 'data', 'svc.db'));
      db.exec('DROP TABLE secrets');
      db.close();
    } else {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP TABLE ${schema}.secrets`);
      await client.end();
    }
  }

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'svc-secrets-'));
  });
  afterAll(() => rm(work, { recursive: true, force: true }));

  it('moves hashes, sessions and token digests out of the history; passwords, sessions and tokens still work', async () => {
    const first = await boot();
    const admin = await signIn(first, ADMIN, ADMIN_PASSWORD);
    const { alice, token, traces } = await aliceWithSessionAndToken(first, admin);
    await first.close({ keepData: true });
    await rewriteTheOldWay();

    const second = await boot();
    try {
      const history = await historyText(second.server.store);
      for (const event of history) for (const trace of traces) expect(event).not.toContain(trace);
      for (const kind of SECRET_KINDS) expect(await second.server.store.count(kind)).toBe(0);

      expect((await second.request('POST', '/login', { username: 'alice', password: 'alice password 2' })).status).toBe(
        200,
      );
      expect((await second.request('POST', '/login', { username: ADMIN, password: ADMIN_PASSWORD })).status).toBe(200);
      // Alice's session from before the upgrade and her token still authenticate.
      const own = await second.request('GET', `${CONSOLE}/users/-/permissions`, undefined, { cookie: alice.cookie });
      expect(own.status).toBe(200);
      expect(own.body.username).toBe('alice');
      expect((await second.request('GET', TOKENS, undefined, bearer(token))).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
