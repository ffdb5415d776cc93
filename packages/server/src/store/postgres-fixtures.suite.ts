/** What the PostgreSQL store tests share: the test database, a fresh schema per file, and dropping it afterwards. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_TEST_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A schema name no other test file or run uses: `<prefix>_<12 hex>`. */
export const freshSchema = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

/** Closes what the file opened, then drops its schema with everything in it. */
export async function closeAndDrop(schema: string, opened: ReadonlyArray<{ close(): Promise<void> }>): Promise<void> {
  await Promise.all(opened.map((store) => store.close()));
  const admin = new pg.Client({ connectionString: PG_TEST_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}
