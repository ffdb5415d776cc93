/**
 * What the index keeps per object: its name (as its natural sort key), a copy of its labels and one Slot per field
 * index, in one flat array. A flat array is the cheapest per-object layout here (one small allocation, no property
 * names). Index groups hold these records, so a query tests and sorts candidates by what is in them, without a lookup
 * by name and without reading the stored bytes. A record lives as long as its object: updates change it in place.
 *
 * The name is kept only as naturalSortKey(name): the name index and every group compare names a dozen or more times
 * per B-tree descent, and keys compare natively, far faster than naturalCompare. The key is invertible, so the name
 * is read back from it when one is needed (a page's names, a message); a name without digits is its own key.
 */

import type { Slot } from './index-values.js';
import type { Labels } from './label-index.js';
import { compareCodeUnits, fromNaturalSortKey, naturalSortKey } from './natural-compare.js';

export type IndexRecord = [nameKey: string, labels: Labels | undefined, ...slots: Slot[]];

const FIRST_SLOT = 2;

export function newRecord(name: string, slotCount: number): IndexRecord {
  // Allocated at its final length: growing by push would leave spare capacity in every record.
  const record = new Array<unknown>(FIRST_SLOT + slotCount).fill('') as IndexRecord;
  record[0] = naturalSortKey(name);
  record[1] = undefined;
  return record;
}

/** A record that only names an object: enough to find the object's record in a name-ordered structure. */
export function probeRecord(name: string): IndexRecord {
  return [naturalSortKey(name), undefined];
}

export function recordName(record: IndexRecord): string {
  return fromNaturalSortKey(record[0]);
}

/** The name's sort key: equal for equal names, and in name order by code unit. */
export function recordKey(record: IndexRecord): string {
  return record[0];
}

/**
 * Name order (naturalCompare of the names), by code unit over the records' keys: the order of the name index and of
 * every group.
 */
export function compareRecords(a: IndexRecord, b: IndexRecord): number {
  return compareCodeUnits(a[0], b[0]);
}

export function recordLabels(record: IndexRecord): Labels | undefined {
  return record[1];
}

export function setRecordLabels(record: IndexRecord, labels: Labels | undefined): void {
  record[1] = labels;
}

export function recordSlot(record: IndexRecord, slot: number): Slot {
  return record[FIRST_SLOT + slot] as Slot;
}

export function setRecordSlot(record: IndexRecord, slot: number, value: Slot): void {
  record[FIRST_SLOT + slot] = value;
}
