/**
 * Group commit for the PostgreSQL store. The writes requested while the previous group waits for the lock or commits
 * (or during one turn of the event loop) share one transaction and one hold of the writers' advisory lock, in two
 * round trips whatever their number: BEGIN, the lock and one read of everything the group's checks need (the counter,
 * the objects it touches, their unique claims, the epochs of the leases that fence it); then one statement writing
 * the history, the objects, the claims and the counter, with COMMIT. The checks run in memory between the two
 * (postgres-group-plan.ts), in request order, against the state as read plus the group's earlier writes: a write
 * refused there (a conflict, a name or unique value taken, a fenced lease, an encoder that throws) takes no revision
 * and leaves nothing, and its neighbours go on. Revisions are given without gaps to the writes that pass, in request
 * order, and become visible together at commit. Every promise settles only after COMMIT has answered, so an
 * acknowledged write is durable.
 */
import type pg from 'pg';
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';
import {
  claimDigests,
  GroupPlan,
  type GroupWrite,
  type Outcome,
  objectKey,
  type ReadRow,
} from './postgres-group-plan.js';
import { literal } from './postgres-literals.js';
import { COMMIT, type NamedQuery, ROLLBACK, runScript } from './postgres-queries.js';
import type { StoredRecord, UniqueClaim } from './types.js';

/** Writes per group at most: bounds the statement's size and the lock's hold. */
const MAX_GROUP = 500;
/**
 * Groups in flight at once. The second waits for the writers' lock inside PostgreSQL while the first commits, so its
 * BEGIN and lock round trip overlap the first's last two; the lock still orders them, and the second reads what the
 * first committed. More would only queue on the lock with fewer writes each.
 */
const IN_FLIGHT = 2;

/**
 * Everything the checks read, in one statement and one snapshot taken after the writers' lock was granted: the
 * counter ('m'), the objects touched ('o', with the value only of those the group deletes, which a delete returns),
 * the claims of those objects and the claims the group asks for ('c'), and
 * the lease rows that fence it ('l', FOR SHARE: a new holder's epoch bump waits for this commit, so no fenced write
 * commits after the lease moved on). Each lookup is a LATERAL subquery kept apart by OFFSET 0 (else the planner merges
 * it into a join), so it is made row by row on the primary key or the claims' index: as a join, the planner scanned a
 * claims table of a few thousand rows whole on every group, its cost model reckoning a few dozen lookups dearer.
 */
const READ_GROUP: NamedQuery = {
  name: 'read_group',
  text: `
    WITH l AS (SELECT name, epoch FROM leases WHERE name = ANY($6::text[]) FOR SHARE)
    SELECT 'm' AS kind, NULL::text AS resource, NULL::text AS name, revision, NULL::bytea AS value,
           NULL::text AS index_name, NULL::bytea AS digest FROM meta WHERE id = 1
    UNION ALL
    SELECT 'o', o.resource, o.name, o.revision, CASE WHEN k.deleted THEN o.value END, NULL, NULL
    FROM unnest($1::text[], $2::text[], $7::bool[]) AS k(resource, name, deleted)
    JOIN LATERAL (SELECT * FROM objects o WHERE o.resource = k.resource AND o.name = k.name OFFSET 0) o ON true
    UNION ALL
    SELECT 'c', c.resource, c.name, NULL, NULL, c.index_name, c.digest
    FROM unnest($1::text[], $2::text[]) AS k(resource, name)
    JOIN LATERAL (SELECT * FROM unique_claims c WHERE c.resource = k.resource AND c.name = k.name OFFSET 0) c ON true
    UNION ALL
    SELECT 'c', c.resource, c.name, NULL, NULL, c.index_name, c.digest
    FROM unnest($3::text[], $4::text[], $5::bytea[]) AS k(resource, index_name, digest)
    JOIN LATERAL (
      SELECT * FROM unique_claims c
      WHERE c.resource = k.resource AND c.index_name = k.index_name AND c.digest = k.digest OFFSET 0) c ON true
    UNION ALL
    SELECT 'l', l.name, NULL, l.epoch, NULL, NULL, NULL FROM l`,
};

/**
 * The group's effect in one statement. Each part touches rows no other part touches (the checks made the objects
 * and claims to write into final states per row), as a statement's parts may not change one row twice. Each value
 * is sent once ($21) and the rows point to it by its place; a previous value at 0 is the one stored, which every part
 * reads as it was before the statement.
 */
const WRITE_GROUP: NamedQuery = {
  name: 'write_group',
  text: `
    WITH v AS (SELECT * FROM unnest($21::bytea[]) WITH ORDINALITY AS v(value, i)),
    history AS (
      INSERT INTO events (revision, type, resource, name, prev_revision, value, prev_value)
      SELECT e.revision, e.type, e.resource, e.name, e.prev_revision, v.value, coalesce(p.value, o.value)
      FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::int[])
        AS e(revision, type, resource, name, prev_revision, value_i, prev_i)
      JOIN v ON v.i = e.value_i
      LEFT JOIN v p ON p.i = e.prev_i
      LEFT JOIN objects o ON e.prev_i = 0 AND o.resource = e.resource AND o.name = e.name),
    stored AS (
      INSERT INTO objects (resource, name, revision, value)
      SELECT s.resource, s.name, s.revision, v.value
      FROM unnest($8::text[], $9::text[], $10::bigint[], $11::int[]) AS s(resource, name, revision, value_i)
      JOIN v ON v.i = s.value_i
      ON CONFLICT (resource, name) DO UPDATE SET revision = EXCLUDED.revision, value = EXCLUDED.value),
    removed AS (
      DELETE FROM objects o USING unnest($12::text[], $13::text[]) AS d(resource, name)
      WHERE o.resource = d.resource AND o.name = d.name),
    released AS (
      DELETE FROM unique_claims c USING unnest($14::text[], $15::text[], $16::bytea[]) AS d(resource, index_name, digest)
      WHERE c.resource = d.resource AND c.index_name = d.index_name AND c.digest = d.digest),
    claimed AS (
      INSERT INTO unique_claims (resource, index_name, digest, name)
      SELECT * FROM unnest($17::text[], $18::text[], $19::bytea[], $20::text[])
      ON CONFLICT (resource, index_name, digest) DO UPDATE SET name = EXCLUDED.name)
    UPDATE meta SET revision = $22::bigint WHERE id = 1 RETURNING pg_notify($23, 'r' || $22::bigint || ' ' || $24)`,
};

interface Pending {
  write: GroupWrite;
  resolve: (record: StoredRecord) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  pool: pg.Pool;
  /** The writers' advisory lock's two keys (plain integers, written into BEGIN's script). */
  lockKeys: readonly [number, number];
  /** The notification channel and this store's instance, for the revision notice. */
  channel: string;
  instance: string;
}

export class GroupCommit {
  private pending: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly options: GroupCommitOptions) {}

  run(write: GroupWrite): Promise<StoredRecord> {
    return new Promise((resolve, reject) => {
      this.pending.push({ write, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once every write requested so far has settled. */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  private schedule(): void {
    if (this.inFlight >= IN_FLIGHT || this.scheduled || this.pending.length === 0) return;
    this.scheduled = true;
    // setImmediate runs after the poll phase, so every request read in this turn joins the group.
    setImmediate(() => {
      this.scheduled = false;
      void this.next();
    });
  }

  private async next(): Promise<void> {
    if (this.inFlight >= IN_FLIGHT) return;
    const group = this.pending.splice(0, MAX_GROUP);
    if (group.length === 0) return;
    this.inFlight++;
    try {
      await this.commitGroup(group);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }

  /** Commits a group; one that fails as a whole (a bug, a constraint the checks missed) is retried write by write. */
  private async commitGroup(group: Pending[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.transaction(group.map((p) => p.write));
    } catch (error) {
      if (group.length === 1 || isConnectionLoss(error)) {
        for (const p of group) p.reject(error);
        return;
      }
      for (const p of group) await this.commitGroup([p]);
      return;
    }
    outcomes.forEach((outcome, i) => {
      if ('record' in outcome) group[i]!.resolve(outcome.record);
      else group[i]!.reject(outcome.error);
    });
  }

  private async transaction(writes: GroupWrite[]): Promise<Outcome[]> {
    const { pool, lockKeys, channel, instance } = this.options;
    const client = await pool.connect();
    try {
      // One round trip: in a script each statement takes its own snapshot, so the read sees what the writer that held
      // the lock before committed.
      const lock = `BEGIN; SELECT pg_advisory_xact_lock(${lockKeys[0] | 0}, ${lockKeys[1] | 0});`;
      const digests = claimDigests(writes);
      const plan = new GroupPlan(await script<ReadRow>(client, READ_GROUP, readValues(writes, digests), lock), digests);
      const outcomes = writes.map((write) => plan.apply(write));
      // One more: the write and its COMMIT (which a failed write never reaches: the script stops at the error).
      if (plan.last > plan.first) {
        await script(client, WRITE_GROUP, [...plan.statementValues(), plan.last, channel, instance], '', 'COMMIT');
      } else {
        await runScript(client, COMMIT);
      }
      client.release();
      return outcomes;
    } catch (error) {
      const broken = await runScript(client, ROLLBACK).then(
        () => undefined,
        (rollbackError: Error) => rollbackError,
      );
      client.release(broken);
      throw error;
    }
  }
}

function isConnectionLoss(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === undefined || code.startsWith('08') || code === '57P01';
}

/**
 * Runs `query` with its values written into the text, between `before` and `after`, as one script (the simple
 * protocol runs several statements in one round trip; the extended one, which takes values apart, runs one). The
 * rows of `query`'s statement are returned.
 */
async function script<R extends QueryResultRow>(
  client: PoolClient,
  query: NamedQuery,
  values: unknown[],
  before = '',
  after = '',
): Promise<R[]> {
  const text = query.text.replace(/\$(\d+)/g, (_, i: string) => literal(values[Number(i) - 1]));
  const results = (await runScript(client, { name: query.name, text: `${before}${text};${after}` })) as unknown as
    | QueryResult<R>[]
    | QueryResult<R>;
  const list = Array.isArray(results) ? results : [results];
  return list[before ? list.length - (after ? 2 : 1) : 0]!.rows;
}

function readValues(writes: GroupWrite[], digests: ReadonlyMap<UniqueClaim, Buffer>): unknown[] {
  // Each object once, its value asked for when the group deletes it.
  const objects = new Map<string, [string, string, boolean]>();
  for (const w of writes) {
    const key = objectKey(w.resource, w.name);
    const deleted = w.kind === 'delete' || objects.get(key)?.[2] === true;
    objects.set(key, [w.resource, w.name, deleted]);
  }
  const claimed = writes.flatMap((w) =>
    w.kind === 'delete' ? [] : (w.claims ?? []).map((c) => [w.resource, c.index, digests.get(c)!] as const),
  );
  const leases = [...new Set(writes.flatMap((w) => (w.fence ? [w.fence.lease] : [])))];
  const keys = [...objects.values()];
  return [
    keys.map((k) => k[0]),
    keys.map((k) => k[1]),
    claimed.map((c) => c[0]),
    claimed.map((c) => c[1]),
    claimed.map((c) => c[2]),
    leases,
    keys.map((k) => k[2]),
  ];
}
