/**
 * The PostgreSQL store's secret records (SecretStore): a plain key-value table beside the history, written without the
 * writers' lock or a revision, and the move of the secrets that earlier versions wrote into the history.
 */
import type pg from 'pg';
import type { PoolClient } from 'pg';
import { type NamedQuery, run } from './postgres-queries.js';
import { checkPositiveInteger, DEFAULT_SCAN_BATCH_SIZE, SECRET_RESOURCES_ONCE_IN_HISTORY } from './records.js';
import type { SecretStore } from './types.js';

// The table itself is made by CREATE_TABLES (postgres-queries.ts).

const GET: NamedQuery = { name: 'secret_get', text: 'SELECT value FROM secrets WHERE kind = $1 AND name = $2' };
// Each write tells the other servers in the same statement ($4: the store's channel; the notice goes out at commit),
// so their caches of sessions and credentials drop the record. The statement returns one row per record written.
const notifying = (write: string) =>
  `WITH written AS (${write} RETURNING 1)
   SELECT pg_notify($4, 's' || json_build_array($1::text, $2::text)::text) FROM written`;
const PUT: NamedQuery = {
  name: 'secret_put',
  text: notifying(`INSERT INTO secrets (kind, name, value) VALUES ($1, $2, $3)
         ON CONFLICT (kind, name) DO UPDATE SET value = EXCLUDED.value`),
};
const REPLACE: NamedQuery = {
  name: 'secret_replace',
  text: notifying('UPDATE secrets SET value = $3 WHERE kind = $1 AND name = $2'),
};
const DELETE: NamedQuery = {
  name: 'secret_delete',
  // $3 is unused; it keeps the channel at $4 as in the others.
  text: notifying('DELETE FROM secrets WHERE kind = $1 AND name = $2 AND $3::bytea IS NULL'),
};
const PAGE: NamedQuery = {
  name: 'secret_page',
  text: 'SELECT name, value FROM secrets WHERE kind = $1 AND name > $2 ORDER BY name LIMIT $3',
};

const KINDS: NamedQuery = {
  name: 'secret_kinds',
  text: 'SELECT kind FROM secrets GROUP BY kind ORDER BY kind COLLATE "C"',
};

/** $1: text[] of resources. An index probe on the objects' primary key. */
export const SECRETS_LEFT_IN_HISTORY: NamedQuery = {
  name: 'secrets_left_in_history',
  text: 'SELECT EXISTS (SELECT 1 FROM objects WHERE resource = ANY($1::text[])) AS found',
};

/** $1: text[]. A record still among the objects was written after any earlier move, so it wins over the table's. */
const MOVE: NamedQuery = {
  name: 'secrets_move',
  text: `
    WITH moved AS (DELETE FROM objects WHERE resource = ANY($1::text[]) RETURNING resource, name, value)
    INSERT INTO secrets (kind, name, value) SELECT resource, name, value FROM moved
    ON CONFLICT (kind, name) DO UPDATE SET value = EXCLUDED.value`,
};
const ERASE_EVENTS: NamedQuery = {
  name: 'secrets_erase_events',
  text: 'DELETE FROM events WHERE resource = ANY($1::text[])',
};

export function postgresSecrets(pool: pg.Pool, channel: string): SecretStore {
  return {
    get: async (kind, name) => (await run<{ value: Buffer }>(pool, GET, [kind, name])).rows[0]?.value,
    put: async (kind, name, value) => void (await run(pool, PUT, [kind, name, value, channel])),
    replace: async (kind, name, value) => ((await run(pool, REPLACE, [kind, name, value, channel])).rowCount ?? 0) > 0,
    delete: async (kind, name) => ((await run(pool, DELETE, [kind, name, null, channel])).rowCount ?? 0) > 0,
    kinds: async () => (await run<{ kind: string }>(pool, KINDS, [])).rows.map((row) => row.kind),
    async *scan(kind, batchSize = DEFAULT_SCAN_BATCH_SIZE) {
      checkPositiveInteger('batchSize', batchSize);
      let after = '';
      for (;;) {
        const { rows } = await run<{ name: string; value: Buffer }>(pool, PAGE, [kind, after, batchSize]);
        if (rows.length === 0) return;
        after = rows[rows.length - 1]!.name;
        yield rows.map((row): [string, Buffer] => [row.name, row.value]);
        if (rows.length < batchSize) return;
      }
    },
  };
}

/**
 * Moves the secret records out of the history: current records into the secrets table, their object rows and every
 * event of theirs deleted. Run inside the caller's transaction, under the writers' lock, so it happens whole or not at
 * all and no write interleaves; running it again finds nothing. The revision counter (meta) is untouched, so no
 * revision is handed out twice. Returns the rows removed from the history.
 */
export async function moveSecretsOutOfHistory(client: PoolClient): Promise<number> {
  const resources = [...SECRET_RESOURCES_ONCE_IN_HISTORY];
  const objects = (await run(client, MOVE, [resources])).rowCount ?? 0;
  return objects + ((await run(client, ERASE_EVENTS, [resources])).rowCount ?? 0);
}
