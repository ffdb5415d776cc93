/**
 * `Store.restore` on PostgreSQL: run inside the caller's transaction, holding the writers' lock, so a restore is
 * committed whole or not at all. Rows go in slices through unnest (one round trip per slice rather than per object).
 */
import type { PoolClient } from 'pg';
import { type NamedQuery, run } from './postgres-queries.js';
import { checkEncoded, checkRevision, type MetaRow } from './records.js';
import { KeyExistsError, type RestoredObject, type RestoredSecret } from './types.js';

/** Rows per statement, and bytes: a slice of large objects is cut short so one statement stays a few MiB. */
const SLICE_ROWS = 500;
const SLICE_BYTES = 8 * 1024 * 1024;
const UNIQUE_VIOLATION = '23505';

const HOLDS_ANY: NamedQuery = {
  name: 'restore_holds_any',
  text: 'SELECT EXISTS (SELECT 1 FROM objects) OR EXISTS (SELECT 1 FROM secrets) AS held',
};
const SKIP_TO: NamedQuery = {
  name: 'restore_skip_to',
  text: `UPDATE meta SET revision = GREATEST(revision, $1), compacted = GREATEST(compacted, $1) WHERE id = 1
         RETURNING revision, compacted`,
};
const INSERT_OBJECTS: NamedQuery = {
  name: 'restore_objects',
  text: `
    WITH rows AS (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bytea[]) AS r(resource, name, revision, value)),
    inserted AS (INSERT INTO objects (resource, name, revision, value) SELECT resource, name, revision, value FROM rows)
    INSERT INTO events (revision, type, resource, name, prev_revision, value)
    SELECT revision, 'ADDED', resource, name, 0, value FROM rows`,
};
const SET_REVISION: NamedQuery = { name: 'restore_revision', text: 'UPDATE meta SET revision = $1 WHERE id = 1' };
const INSERT_SECRETS: NamedQuery = {
  name: 'restore_secrets',
  text: 'INSERT INTO secrets (kind, name, value) SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[])',
};

/** Fills the store; the caller holds the writers' lock in the transaction of `client` (see Store.restore). */
export async function restoreInto(
  client: PoolClient,
  revision: number,
  objects: readonly RestoredObject[],
  secrets: readonly RestoredSecret[],
): Promise<void> {
  if ((await run<{ held: boolean }>(client, HOLDS_ANY, [])).rows[0]!.held) {
    throw new Error('the store is not empty: a restore needs an empty one');
  }
  let next = (await run<MetaRow>(client, SKIP_TO, [checkRevision(revision)])).rows[0]!.revision;
  const encoded = objects.map((object) => {
    next++;
    return { ...object, revision: next, value: checkEncoded(object.encode(next)) };
  });
  for (const slice of slices(encoded, (o) => o.value.length)) {
    const columns = [slice.map((o) => o.resource), slice.map((o) => o.name), slice.map((o) => o.revision)];
    await run(client, INSERT_OBJECTS, [...columns, slice.map((o) => o.value)]).catch(
      (error: { code?: string; detail?: string }) => {
        if (error.code !== UNIQUE_VIOLATION) throw error;
        // `Key (resource, name)=(roles, admin) already exists.`
        const duplicate = slice.find((o) => error.detail?.includes(`(${o.resource}, ${o.name})`)) ?? slice[0]!;
        throw new KeyExistsError(duplicate.resource, duplicate.name);
      },
    );
  }
  await run(client, SET_REVISION, [next]);
  for (const slice of slices(secrets, (s) => s.value.length)) {
    const columns = [slice.map((s) => s.kind), slice.map((s) => s.name), slice.map((s) => s.value)];
    await run(client, INSERT_SECRETS, columns).catch((error: { code?: string }) => {
      if (error.code !== UNIQUE_VIOLATION) throw error;
      throw new Error('a secret record is given twice');
    });
  }
}

/** `items` cut into slices of at most SLICE_ROWS items and (past the first item) SLICE_BYTES as `size` counts. */
function* slices<T>(items: readonly T[], size: (item: T) => number): Iterable<T[]> {
  let slice: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (slice.length > 0 && (slice.length >= SLICE_ROWS || bytes + size(item) > SLICE_BYTES)) {
      yield slice;
      slice = [];
      bytes = 0;
    }
    slice.push(item);
    bytes += size(item);
  }
  if (slice.length > 0) yield slice;
}
