/**
 * The checks of a group of PostgreSQL writes (postgres-batch.ts), in memory and in request order: the state as one
 * read found it, then as each accepted write leaves it; and the rows the group's statement then writes, each in its
 * final state.
 */
import { createHash } from 'node:crypto';
import type { Fence } from './fence.js';
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

/** A row of READ_GROUP (postgres-batch.ts): an object's value only where the group deletes it. */
export interface ReadRow {
  kind: 'm' | 'o' | 'c' | 'l';
  resource: string | null;
  name: string | null;
  revision: number | null;
  value: Buffer | null;
  index_name: string | null;
  digest: Buffer | null;
}

export type Outcome = { record: StoredRecord } | { error: unknown };

export const digestOf = (value: string) => createHash('sha256').update(value).digest();

/** The digest of each claim the group's writes ask for, made once: the read looks them up, the plan checks them. */
export function claimDigests(writes: readonly GroupWrite[]): Map<UniqueClaim, Buffer> {
  const digests = new Map<UniqueClaim, Buffer>();
  for (const write of writes) {
    if (write.kind !== 'delete') for (const claim of write.claims ?? []) digests.set(claim, digestOf(claim.value));
  }
  return digests;
}

export const objectKey = (resource: string, name: string) => `${resource}\u0000${name}`;
const claimKey = (resource: string, index: string, digest: Buffer) =>
  `${resource}\u0000${index}\u0000${digest.toString('hex')}`;

/**
 * An object's state in the group. Its value is sent once, in the group's values (`valueIndex`, from 1); 0 is the
 * value stored, which the statement reads itself, so an update sends neither the previous value nor, for the history,
 * the new one twice. `value` is known for the group's own writes and for an object the group deletes.
 */
interface Head {
  revision: number;
  valueIndex: number;
  value?: Buffer;
}

interface ClaimRow {
  resource: string;
  index: string;
  digest: Buffer;
}

/** The group's state in memory: the rows as read, then as each accepted write leaves them. */
export class GroupPlan {
  readonly first: number;
  last: number;
  private readonly objects = new Map<string, Head | undefined>();
  private readonly readObjects = new Map<string, number | undefined>();
  /** Holder (object name) of each claim touched, as read and as written. */
  private readonly holders = new Map<string, string | undefined>();
  private readonly readHolders = new Map<string, string | undefined>();
  private readonly claimRows = new Map<string, ClaimRow>();
  /** The claims each object touched holds. */
  private readonly claimsOf = new Map<string, Set<string>>();
  private readonly epochs = new Map<string, number>();
  /** revision, type, resource, name, prev_revision, value's index, previous value's index (null: none). */
  private readonly events: Array<[number, string, string, string, number, number, number | null]> = [];
  private readonly values: Buffer[] = [];
  private readonly touched = new Map<string, { resource: string; name: string }>();

  constructor(
    rows: ReadRow[],
    private readonly digests: ReadonlyMap<UniqueClaim, Buffer>,
  ) {
    let revision = 0;
    for (const row of rows) {
      if (row.kind === 'm') revision = row.revision!;
      else if (row.kind === 'l') this.epochs.set(row.resource!, row.revision!);
      else if (row.kind === 'o') {
        const key = objectKey(row.resource!, row.name!);
        this.objects.set(key, { revision: row.revision!, valueIndex: 0, value: row.value ?? undefined });
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
    const value = write.kind === 'delete' ? removedValue(head!) : checkEncoded(write.encode(revision));
    // Accepted from here on: nothing below throws.
    this.last = revision;
    this.touched.set(key, { resource, name });
    if (wanted) this.setClaims(resource, name, wanted);
    if (write.kind === 'delete') {
      const valueIndex = head!.valueIndex || this.values.push(value);
      this.objects.set(key, undefined);
      this.events.push([revision, 'DELETED', resource, name, head!.revision, valueIndex, null]);
    } else {
      const valueIndex = this.values.push(value);
      this.objects.set(key, { revision, valueIndex, value });
      this.events.push(
        write.kind === 'create'
          ? [revision, 'ADDED', resource, name, 0, valueIndex, null]
          : [revision, 'MODIFIED', resource, name, head!.revision, valueIndex, head!.valueIndex],
      );
    }
    return { resource, name, revision, value };
  }

  /** The claim keys the object will hold; throws UniqueClaimError when another object holds one. */
  private wantedClaims(resource: string, name: string, claims: readonly UniqueClaim[]): Set<string> {
    const wanted = new Set<string>();
    for (const claim of claims) {
      // claimDigests made one for every claim of the group's writes, this one's included.
      const digest = this.digests.get(claim)!;
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

  /**
   * WRITE_GROUP's first twenty-one values: the events, then each row's final state where it differs from what was
   * read, then the values they point to.
   */
  statementValues(): unknown[] {
    const columns = <T>(rows: readonly (readonly unknown[])[], i: number) => rows.map((row) => row[i] as T);
    const stored: Array<[string, string, number, number]> = [];
    const removed: Array<[string, string]> = [];
    for (const [key, { resource, name }] of this.touched) {
      const now = this.objects.get(key);
      if (now) stored.push([resource, name, now.revision, now.valueIndex]);
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
      this.values,
    ];
  }
}

/** The value a delete removes: READ_GROUP returns it for the objects a group deletes. */
function removedValue(head: Head): Buffer {
  if (!head.value) throw new Error('the value of an object to delete was not read');
  return head.value;
}
