/**
 * Group commit for the PostgreSQL store. The writes requested while the previous group waits for the lock or commits
 * (or during one turn of the event loop) share one transaction and one hold of the writers' advisory lock, in four round trips whatever
 * their number: BEGIN with the lock; one read of everything the group's checks need (the counter, the objects it
 * touches, their unique claims, the epochs of the leases that fence it); one statement writing the history, the
 * objects, the claims and the counter; COMMIT. The checks run in memory between the two, in request order, against
 * the state as it was read plus the group's earlier writes: a write refused there (a conflict, a name or unique value
 * taken, a fenced lease, an encoder that throws) takes no revision and leaves nothing, and its neighbours go on.
 * Revisions are given without gaps to the writes that pass, in request order, and become visible together at commit.
 * Every promise settles only after COMMIT has answered, so an acknowledged write is durable.
 */
import { createHash } from 'node:crypto';
import pg, { type PoolClient, type QueryResult, type QueryResultRow } from 'pg';
import type { Fence } from './fence.js';
import { type NamedQuery, runScript } from './postgres-queries.js';
import { checkEncoded } from './records.js';
import {
  type Encoder,
  FencedError,
  KeyExistsError,
  RevisionConflictError,
  type StoredRecord,
  type UniqueClaim,
  UniqueClaimError,
} from './types.js';

export type GroupWrite = {
  resource: string;
  name: string;
  fence?: Fence;
} & (
  | { kind: 'create'; encode: Encoder; claims?: readonly UniqueClaim[] }
  | { kind: 'update'; expected: number; encode: Encoder; claims?: readonly UniqueClaim[] }
  | { kind: 'delete'; expected: number }
);

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
 * counter ('m'), the objects touched ('o'), the claims of those objects and the claims the group asks for ('c'), and
 * the lease rows that fence it ('l', FOR SHARE: a new holder's epoch bump waits for this commit, so no fenced write
 * commits after the lease moved on).
 */
const READ_GROUP: NamedQuery = {
  name: 'read_group',
  text: `
    WITH l AS (SELECT name, epoch FROM leases WHERE name = ANY($6::text[]) FOR SHARE)
    SELECT 'm' AS kind, NULL::text AS resource, NULL::text AS name, revision, NULL::bytea AS value,
           NULL::text AS index_name, NULL::bytea AS digest FROM meta WHERE id = 1
    UNION ALL
    SELECT 'o', o.resource, o.name, o.revision, o.value, NULL, NULL
    FROM unnest($1::text[], $2::text[]) AS k(resource, name) JOIN objects o USING (resource, name)
    UNION ALL
    SELECT 'c', c.resource, c.name, NULL, NULL, c.index_name, c.digest
    FROM unnest($1::text[], $2::text[]) AS k(resource, name) JOIN unique_claims c USING (resource, name)
    UNION ALL
    SELECT 'c', c.resource, c.name, NULL, NULL, c.index_name, c.digest
    FROM unnest($3::text[], $4::text[], $5::bytea[]) AS k(resource, index_name, digest)
    JOIN unique_claims c USING (resource, index_name, digest)
    UNION ALL
    SELECT 'l', l.name, NULL, l.epoch, NULL, NULL, NULL FROM l`,
};

/**
 * The group's effect in one statement. Each part touches rows no other part touches (the checks made the objects
 * and claims to write into final states per row), as a statement's parts may not change one row twice.
 */
const WRITE_GROUP: NamedQuery = {
  name: 'write_group',
  text: `
    WITH history AS (
      INSERT INTO events (revision, type, resource, name, prev_revision, value, prev_value)
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bytea[], $7::bytea[])),
    stored AS (
      INSERT INTO objects (resource, name, revision, value)
      SELECT * FROM unnest($8::text[], $9::text[], $10::bigint[], $11::bytea[])
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
    UPDATE meta SET revision = $21::bigint WHERE id = 1 RETURNING pg_notify($22, 'r' || $21::bigint || ' ' || $23)`,
};

interface Pending {
  write: GroupWrite;
  resolve: (record: StoredRecord) => void;
  reject: (error: unknown) => void;
}

interface ReadRow {
  kind: 'm' | 'o' | 'c' | 'l';
  resource: string | null;
  name: string | null;
  revision: number | null;
  value: Buffer | null;
  index_name: string | null;
  digest: Buffer | null;
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
      const plan = new GroupPlan(await script<ReadRow>(client, READ_GROUP, readValues(writes), lock));
      const outcomes = writes.map((write) => plan.apply(write));
      // One more: the write and its COMMIT (which a failed write never reaches: the script stops at the error).
      if (plan.last > plan.first) {
        await script(client, WRITE_GROUP, [...plan.statementValues(), plan.last, channel, instance], '', 'COMMIT');
      } else {
        await runScript(client, { name: 'commit', text: 'COMMIT' });
      }
      client.release();
      return outcomes;
    } catch (error) {
      const broken = await runScript(client, { name: 'rollback', text: 'ROLLBACK' }).then(
        () => undefined,
        (rollbackError: Error) => rollbackError,
      );
      client.release(broken);
      throw error;
    }
  }
}

type Outcome = { record: StoredRecord } | { error: unknown };

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

/** A value as SQL text: strings quoted by pg's escapeLiteral, bytes in hex, integers checked, arrays as ARRAY[…]. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
    return String(value);
  }
  if (Buffer.isBuffer(value)) return `'\\x${value.toString('hex')}'`;
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(',')}]`;
  throw new TypeError(`no SQL literal for ${typeof value}`);
}

function readValues(writes: GroupWrite[]): unknown[] {
  const claimed = writes.flatMap((w) =>
    w.kind === 'delete' ? [] : (w.claims ?? []).map((c) => [w.resource, c.index, digestOf(c.value)] as const),
  );
  const leases = [...new Set(writes.flatMap((w) => (w.fence ? [w.fence.lease] : [])))];
  return [
    writes.map((w) => w.resource),
    writes.map((w) => w.name),
    claimed.map((c) => c[0]),
    claimed.map((c) => c[1]),
    claimed.map((c) => c[2]),
    leases,
  ];
}

const digestOf = (value: string) => createHash('sha256').update(value).digest();
const objectKey = (resource: string, name: string) => `${resource}\u0000${name}`;
const claimKey = (resource: string, index: string, digest: Buffer) =>
  `${resource}\u0000${index}\u0000${digest.toString('hex')}`;

interface ClaimRow {
  resource: string;
  index: string;
  digest: Buffer;
}

/** The group's state in memory: the rows as read, then as each accepted write leaves them. */
class GroupPlan {
  readonly first: number;
  last: number;
  private readonly objects = new Map<string, { revision: number; value: Buffer } | undefined>();
  private readonly readObjects = new Map<string, number | undefined>();
  /** Holder (object name) of each claim touched, as read and as written. */
  private readonly holders = new Map<string, string | undefined>();
  private readonly readHolders = new Map<string, string | undefined>();
  private readonly claimRows = new Map<string, ClaimRow>();
  /** The claims each object touched holds. */
  private readonly claimsOf = new Map<string, Set<string>>();
  private readonly epochs = new Map<string, number>();
  private readonly events: Array<[number, string, string, string, number, Buffer, Buffer | null]> = [];
  private readonly touched = new Map<string, { resource: string; name: string }>();

  constructor(rows: ReadRow[]) {
    let revision = 0;
    for (const row of rows) {
      if (row.kind === 'm') revision = row.revision!;
      else if (row.kind === 'l') this.epochs.set(row.resource!, row.revision!);
      else if (row.kind === 'o') {
        const key = objectKey(row.resource!, row.name!);
        this.objects.set(key, { revision: row.revision!, value: row.value! });
        this.readObjects.set(key, row.revision!);
      } else {
        const key = claimKey(row.resource!, row.index_name!, row.digest!);
        this.claimRows.set(key, { resource: row.resource!, index: row.index_name!, digest: row.digest! });
        this.holders.set(key, row.name!);
        this.readHolders.set(key, row.name!);
        this.heldBy(row.resource!, row.name!).add(key);
      }
    }
    this.first = revision;
    this.last = revision;
  }

  /** Checks a write against the state so far and, if it passes, makes it part of the group. */
  apply(write: GroupWrite): Outcome {
    try {
      return { record: this.accept(write) };
    } catch (error) {
      return { error };
    }
  }

  private accept(write: GroupWrite): StoredRecord {
    const { resource, name, fence } = write;
    if (fence && this.epochs.get(fence.lease) !== fence.epoch) {
      throw new FencedError(fence.lease, fence.epoch, this.epochs.get(fence.lease));
    }
    const key = objectKey(resource, name);
    if (!this.readObjects.has(key)) this.readObjects.set(key, undefined);
    const head = this.objects.get(key);
    if (write.kind === 'create' && head) throw new KeyExistsError(resource, name);
    if (write.kind !== 'create' && head?.revision !== write.expected) {
      throw new RevisionConflictError(resource, name, write.expected, head?.revision);
    }
    const claims = write.kind === 'delete' ? [] : write.claims;
    const wanted = claims && this.wantedClaims(resource, name, claims);
    const revision = this.last + 1;
    const value = write.kind === 'delete' ? head!.value : checkEncoded(write.encode(revision));
    // Accepted from here on: nothing below throws.
    this.last = revision;
    this.touched.set(key, { resource, name });
    if (wanted) this.setClaims(resource, name, wanted);
    if (write.kind === 'delete') {
      this.objects.set(key, undefined);
      this.events.push([revision, 'DELETED', resource, name, head!.revision, value, null]);
    } else {
      this.objects.set(key, { revision, value });
      this.events.push(
        write.kind === 'create'
          ? [revision, 'ADDED', resource, name, 0, value, null]
          : [revision, 'MODIFIED', resource, name, head!.revision, value, head!.value],
      );
    }
    return { resource, name, revision, value };
  }

  /** The claim keys the object will hold; throws UniqueClaimError when another object holds one. */
  private wantedClaims(resource: string, name: string, claims: readonly UniqueClaim[]): Set<string> {
    const wanted = new Set<string>();
    for (const claim of claims) {
      const digest = digestOf(claim.value);
      const key = claimKey(resource, claim.index, digest);
      const holder = this.holders.get(key);
      if (holder !== undefined && holder !== name) throw new UniqueClaimError(resource, name, claim);
      this.claimRows.set(key, { resource, index: claim.index, digest });
      wanted.add(key);
    }
    return wanted;
  }

  private setClaims(resource: string, name: string, wanted: Set<string>): void {
    const held = this.heldBy(resource, name);
    for (const key of held) {
      if (!this.readHolders.has(key)) this.readHolders.set(key, this.holders.get(key));
      if (!wanted.has(key)) this.holders.set(key, undefined);
    }
    for (const key of wanted) {
      if (!this.readHolders.has(key)) this.readHolders.set(key, this.holders.get(key));
      this.holders.set(key, name);
    }
    this.claimsOf.set(objectKey(resource, name), wanted);
  }

  private heldBy(resource: string, name: string): Set<string> {
    const key = objectKey(resource, name);
    let held = this.claimsOf.get(key);
    if (!held) this.claimsOf.set(key, (held = new Set()));
    return held;
  }

  /** WRITE_GROUP's first twenty values: the events, then each row's final state where it differs from what was read. */
  statementValues(): unknown[] {
    const columns = <T>(rows: readonly (readonly unknown[])[], i: number) => rows.map((row) => row[i] as T);
    const stored: Array<[string, string, number, Buffer]> = [];
    const removed: Array<[string, string]> = [];
    for (const [key, { resource, name }] of this.touched) {
      const now = this.objects.get(key);
      if (now) stored.push([resource, name, now.revision, now.value]);
      else if (this.readObjects.get(key) !== undefined) removed.push([resource, name]);
    }
    const released: Array<[string, string, Buffer]> = [];
    const claimed: Array<[string, string, Buffer, string]> = [];
    for (const [key, before] of this.readHolders) {
      const after = this.holders.get(key);
      if (after === before) continue;
      const row = this.claimRows.get(key)!;
      if (after === undefined) released.push([row.resource, row.index, row.digest]);
      else claimed.push([row.resource, row.index, row.digest, after]);
    }
    return [
      ...[0, 1, 2, 3, 4, 5, 6].map((i) => columns(this.events, i)),
      ...[0, 1, 2, 3].map((i) => columns(stored, i)),
      ...[0, 1].map((i) => columns(removed, i)),
      ...[0, 1, 2].map((i) => columns(released, i)),
      ...[0, 1, 2, 3].map((i) => columns(claimed, i)),
    ];
  }
}
