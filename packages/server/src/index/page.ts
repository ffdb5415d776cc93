/**
 * Producing one page of matches in sort order, two ways:
 * - walk: follow the first sort index in order (backwards for descending) and keep the objects that match, stopping
 *   once the page is full; ties come out name-ascending because each group is kept in name order;
 * - sort: take the gathered matches and sort them by the values in their records.
 * Walking costs about (page end × objects / matches) visits; sorting costs matches × log2(matches) comparisons.
 * `prefersSorting` picks the cheaper. Further sort terms order the ties of the first the same way, recursively.
 */
import { NAME_SLOT, type OrderedIndex } from './field-index.js';
import { compareRecords, type IndexRecord, recordKey, recordSlot } from './index-record.js';
import { slotSortKey } from './index-values.js';
import { compareCodeUnits } from './natural-compare.js';
import { forEachMember, groupSize, pushMembers, type RecordGroup } from './record-group.js';

/** A sort term resolved to its index. Every sort ends with name ascending, which is left implicit. */
export interface SortKey {
  index: OrderedIndex;
  descending: boolean;
}

type Accept = ((record: IndexRecord) => boolean) | undefined;

/** Whether a group of an index can hold matches, judged by its value (from selector terms on that index). */
export type GroupAllowed = (index: OrderedIndex, value: string) => boolean;

export function prefersSorting(matches: number, objects: number, pageEnd: number): boolean {
  const walkVisits = Math.min(objects, (pageEnd * objects) / Math.max(matches, 1));
  return matches * Math.log2(matches + 1) < walkVisits;
}

/** Sorts `records` by `keys` then name, and returns `limit` of them from `offset`. */
export function sortRecords(
  records: readonly IndexRecord[],
  keys: readonly SortKey[],
  offset: number,
  limit: number,
): IndexRecord[] {
  const width = keys.length;
  // One flat array of sort values (records × keys) and a typed array of positions: two allocations in all.
  const values = new Array<string>(records.length * width);
  for (let i = 0; i < records.length; i++) {
    for (let k = 0; k < width; k++) values[i * width + k] = sortValue(records[i]!, keys[k]!);
  }
  const order = new Uint32Array(records.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((a, b) => {
    for (let k = 0; k < width; k++) {
      const c = compareCodeUnits(values[a * width + k]!, values[b * width + k]!);
      if (c !== 0) return keys[k]!.descending ? -c : c;
    }
    return compareRecords(records[a]!, records[b]!);
  });
  const page: IndexRecord[] = [];
  const end = Math.min(order.length, offset + limit);
  for (let i = offset; i < end; i++) page.push(records[order[i]!]!);
  return page;
}

/** Walks the first key's index in order and returns `limit` matches from `offset`. */
export function walkPage(
  keys: readonly SortKey[],
  accept: Accept,
  objects: number,
  offset: number,
  limit: number,
  allowed?: GroupAllowed,
): IndexRecord[] {
  const [first, ...rest] = keys as [SortKey, ...SortKey[]];
  // An object with several values meets the walk once per value; it belongs where it is met first.
  const seen = first.index.multiValued ? new Set<IndexRecord>() : undefined;
  const take: Accept = seen
    ? (record) => {
        if (seen.has(record) || (accept && !accept(record))) return false;
        seen.add(record);
        return true;
      }
    : accept;
  const page: IndexRecord[] = [];
  let skipped = 0;

  first.index.forEachGroup(first.descending, (value, group) => {
    if (allowed && !allowed(first.index, value)) return true;
    // Whole groups before the page are skipped by their number of matches (their size, when nothing is tested).
    const size = groupSize(group);
    if (skipped < offset && !take && skipped + size <= offset) {
      skipped += size;
      return true;
    }
    if (rest.length === 0 || size === 1) {
      return forEachMember(group, (record) => {
        if (take && !take(record)) return true;
        if (skipped < offset) skipped++;
        else page.push(record);
        return page.length < limit;
      });
    }
    const end = offset - skipped + limit - page.length;
    let tied: IndexRecord[] | undefined;
    if (seen || prefersSorting(size, objects, end)) {
      tied = [];
      pushMembers(group, tied);
      if (take) tied = tied.filter(take);
    }
    const matching = tied ? tied.length : skipped < offset ? countMatching(group, take) : size;
    if (skipped + matching <= offset) {
      skipped += matching;
      return true;
    }
    page.push(
      ...(tied
        ? sortRecords(tied, rest, offset - skipped, limit - page.length)
        : // A large group: walk the next key's index for its members (a single-valued index: the slot tells).
          walkPage(
            rest,
            inGroup(first.index.slot, value, take),
            objects,
            offset - skipped,
            limit - page.length,
            allowed,
          )),
    );
    skipped = offset;
    return page.length < limit;
  });
  return page;
}

function inGroup(slot: number, value: string, accept: Accept): (record: IndexRecord) => boolean {
  return (record) => recordSlot(record, slot) === value && (!accept || accept(record));
}

function countMatching(group: RecordGroup, accept: Accept): number {
  if (!accept) return groupSize(group);
  let count = 0;
  forEachMember(group, (record) => void (accept(record) && count++));
  return count;
}

function sortValue(record: IndexRecord, key: SortKey): string {
  const slot = key.index.slot;
  if (slot === NAME_SLOT) return recordKey(record);
  return slotSortKey(recordSlot(record, slot), compareCodeUnits, key.descending);
}
