/**
 * The objects that share one index value, kept in name order (compareRecords) so that ties come out name-ascending
 * whichever way the index is walked, without buffering and sorting a long run of equal values.
 *
 * Members are the objects' records (not their names): a walk reads a member's values straight from it, with no
 * lookup by name, which on a large model costs more than everything else a walk does (a hash probe is a few cache
 * misses).
 *
 * The representation grows with the group, because most groups are tiny (unique and near-unique indexes such as
 * creationTimestamp have one object per value) and a few are huge (a gender, the objects without a deletionTimestamp):
 * - one member: the record itself (no container at all);
 * - up to ARRAY_MAX members: an array sorted by name (a word a member, binary search, cheap splices);
 * - more: a B-tree set of records in name order (logarithmic updates; back to an array below ARRAY_MIN, with
 *   hysteresis so a group oscillating around the limit does not convert on every write).
 * Arrays and B-trees are changed in place; the add and delete functions return the group to keep from then on.
 *
 * A bulk load (index-loader.ts) meets records in name order: it appends them (`groupAppend`, no search) and then gives
 * the group its lasting form once (`sealGroup`: a large one is bulk-loaded into its B-tree).
 */
import { isBTree, loadRecordSet, newRecordSet, type RecordSet, STOP } from './btree.js';
import { compareRecords, type IndexRecord } from './index-record.js';

export type RecordGroup = IndexRecord | IndexRecord[] | RecordSet | DerivedGroup;

/** Visits records in name order until `visit` returns false (the name index's walk). */
export type WalkInNameOrder = (visit: (record: IndexRecord) => boolean) => void;

/**
 * A group that is not kept but read off a larger, name-ordered collection: the members of `walk` that `holds`. A field
 * index uses one for its no-value group when nearly every object has no value (metadata.deletionTimestamp): keeping
 * that group would cost a B-tree insert per create for what is, in effect, the name index again. Only the index
 * that made it changes it (by making a new one), so groupAdd and groupDelete never see one.
 */
export class DerivedGroup {
  constructor(
    readonly size: number,
    /** Walks the candidates; the members are those `holds` accepts. */
    private readonly walk: WalkInNameOrder,
    private readonly holds: (record: IndexRecord) => boolean,
  ) {}

  /** Visits the members in name order until `visit` returns false; returns false when stopped early. */
  forEach(visit: (record: IndexRecord) => boolean | void): boolean {
    let left = this.size;
    let completed = true;
    this.walk((record) => {
      if (!this.holds(record)) return true;
      left--;
      if (visit(record) === false) return (completed = false);
      return left > 0;
    });
    return completed;
  }
}

const ARRAY_MAX = 64;
const ARRAY_MIN = 32;

function isRecordSet(group: RecordGroup): group is RecordSet {
  return isBTree(group);
}

/** A record starts with its name; an array of records starts with a record. */
function isRecord(group: RecordGroup): group is IndexRecord {
  return Array.isArray(group) && typeof group[0] === 'string';
}

export function groupSize(group: RecordGroup | undefined): number {
  if (group === undefined) return 0;
  if (group instanceof DerivedGroup) return group.size;
  if (isRecordSet(group)) return group.size;
  return isRecord(group) ? 1 : group.length;
}

/** Adds `record` (idempotent); returns the group to keep. */
export function groupAdd(group: RecordGroup | undefined, record: IndexRecord): RecordGroup {
  if (group === undefined) return record;
  if (group instanceof DerivedGroup) throw new Error('a derived group changes only through its index');
  if (isRecordSet(group)) {
    group.set(record, undefined);
    return group;
  }
  if (isRecord(group)) {
    if (group === record) return group;
    return compareRecords(group, record) < 0 ? [group, record] : [record, group];
  }
  const at = search(group, record);
  if (at >= 0) return group;
  if (group.length < ARRAY_MAX) {
    group.splice(-at - 1, 0, record);
    return group;
  }
  const set = newRecordSet();
  for (const member of group) set.set(member, undefined);
  set.set(record, undefined);
  return set;
}

/** A group being built by a bulk load: the first record alone, then an array in the order the records came. */
export type GrowingGroup = IndexRecord | IndexRecord[];

/** Appends `record`, which sorts after every member (bulk load); returns the group to keep. */
export function groupAppend(group: GrowingGroup | undefined, record: IndexRecord): GrowingGroup {
  if (group === undefined) return record;
  if (isRecord(group)) return [group, record];
  group.push(record);
  return group;
}

/** The lasting form of a group built by `groupAppend`: the one `groupAdd` gives a group of that size. */
export function sealGroup(group: GrowingGroup): RecordGroup {
  if (isRecord(group)) return group;
  // A copy of an array built by push drops its spare capacity (up to half its length again).
  return group.length > ARRAY_MAX ? loadRecordSet(group) : group.slice();
}

/** Removes `record`; returns the group to keep, or undefined once it is empty. */
export function groupDelete(group: RecordGroup | undefined, record: IndexRecord): RecordGroup | undefined {
  if (group === undefined) return undefined;
  if (group instanceof DerivedGroup) throw new Error('a derived group changes only through its index');
  if (isRecordSet(group)) {
    group.delete(record);
    return group.size < ARRAY_MIN ? group.keysArray() : group;
  }
  if (isRecord(group)) return group === record ? undefined : group;
  const at = search(group, record);
  if (at < 0) return group;
  group.splice(at, 1);
  return group.length === 1 ? group[0] : group;
}

/** Calls `visit` on each member in name order until it returns false; returns false when stopped early. */
export function forEachMember(group: RecordGroup | undefined, visit: (record: IndexRecord) => boolean | void): boolean {
  if (group === undefined) return true;
  if (group instanceof DerivedGroup) return group.forEach(visit);
  if (isRecordSet(group)) {
    let completed = true;
    group.forEachPair((record) => {
      if (visit(record) !== false) return;
      completed = false;
      return STOP;
    });
    return completed;
  }
  if (isRecord(group)) return visit(group) !== false;
  for (const record of group) if (visit(record) === false) return false;
  return true;
}

/** Appends the members to `out`, in name order. */
export function pushMembers(group: RecordGroup | undefined, out: IndexRecord[]): void {
  if (group === undefined) return;
  if (group instanceof DerivedGroup) group.forEach((record) => void out.push(record));
  else if (isRecordSet(group)) group.forEachPair((record) => void out.push(record));
  else if (isRecord(group)) out.push(group);
  else for (const record of group) out.push(record);
}

/** Index of the record named as `record` in the array, or -(insertion point) - 1. */
function search(records: readonly IndexRecord[], record: IndexRecord): number {
  let low = 0;
  let high = records.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const order = compareRecords(records[mid]!, record);
    if (order === 0) return mid;
    if (order < 0) low = mid + 1;
    else high = mid - 1;
  }
  return -low - 1;
}
