/**
 * What the index keeps per object: its name, a copy of its labels, its name's natural sort key and one Slot per field
 * index, in one flat array.
 * A flat array is the cheapest per-object layout here (one small allocation, no property names). Index groups hold
 * these records, so a query tests and sorts candidates by what is in them, without a lookup by name and without
 * reading the stored bytes. A record lives as long as its object: updates change it in place.
 */
import type { Labels } from './label-index.js';
import type { Slot } from './index-values.js';
import { naturalSortKey } from './natural-compare.js';

export type IndexRecord = [name: string, labels: Labels | undefined, sortKey: string, ...slots: Slot[]];

const SORT_KEY = 2;
const FIRST_SLOT = 3;

export function newRecord(name: string, slotCount: number): IndexRecord {
  // Allocated at its final length: growing by push would leave spare capacity in every record.
  const record = new Array<unknown>(FIRST_SLOT + slotCount).fill('') as IndexRecord;
  record[0] = name;
  record[1] = undefined;
  record[SORT_KEY] = naturalSortKey(name);
  return record;
}

/** A record that only names an object: enough to find the object's record in a name-ordered structure. */
export function probeRecord(name: string): IndexRecord {
  return [name, undefined, naturalSortKey(name)];
}

/**
 * Name order (naturalCompare of the names), computed from the records' sort keys by code unit: the comparison behind
 * the name index and every group, so it runs natively (see naturalSortKey).
 */
export function compareRecords(a: IndexRecord, b: IndexRecord): number {
  const x = a[SORT_KEY];
  const y = b[SORT_KEY];
  return x < y ? -1 : x > y ? 1 : 0;
}

export function recordName(record: IndexRecord): string {
  return record[0];
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
