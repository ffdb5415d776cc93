import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from './postgres.js';
import { describeStoreConformance } from './store.suite.js';
import { encodeAs } from './store-fixtures.suite.js';

const connectionString = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const freshSchema = () => `svc_test_${randomBytes(6).toString('hex')}`;

// Each test gets a fresh schema, dropped after it; `admin` does the dropping.
let schema = freshSchema();
const admin = new pg.Client({ connectionString });

beforeAll(async () => {
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is unreachable at ${connectionString} (${(error as Error).message}). Set SVC_TEST_DATABASE_URL, ` +
        'or start the local cluster: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
    );
  }
});

afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
  await admin.end();
});

describeStoreConformance(
  'postgres',
  () => openPostgresStore({ connectionString, schema }),
  async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    schema = freshSchema();
  },
);

describe('openPostgresStore', () => {
  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openPostgresStore({ connectionString, schema: 'x; DROP TABLE y' })).rejects.toThrow(/schema/);
  });

  it('names the query that failed', async () => {
    const store = await openPostgresStore({ connectionString, schema });
    try {
      await admin.query(`DROP TABLE ${schema}.events`);
      await expect(store.changesSince(0)).rejects.toThrow(/^select_changes: /);
    } finally {
      await store.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('moves secrets out of a database made before the secrets table, even those only events remember', async () => {
    const store = await openPostgresStore({ connectionString, schema });
    try {
      const session = await store.create('security.svc.run/sessions', 'ended', () => Buffer.from('scrypt$x'));
      await store.delete('security.svc.run/sessions', 'ended', session.revision);
      await store.create('widgets', 'a', encodeAs('a'));
      await store.close();
      // What an earlier version left: no secrets table.
      await admin.query(`DROP TABLE ${schema}.secrets`);
      const reopened = await openPostgresStore({ connectionString, schema });
      expect((await reopened.changesSince(0)).map((change) => change.name)).toEqual(['a']);
      expect(await reopened.secrets.get('security.svc.run/sessions', 'ended')).toBeUndefined();
      await reopened.close();
    } finally {
      await store.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });
});
