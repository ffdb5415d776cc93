/**
 * Fills a model's empty index with many objects at once (at boot, from the store), faster than the index's `apply`
 * would one object at a time. `apply` files an object by searching the name index, each field index's
 * values and the group of its value, and each label's group: a B-tree descent or binary search each, a dozen or more
 * naturalCompare calls apiece. Here the records are sorted by name once; each group is then built by appending
 * records in that order, and each B-tree is bulk-loaded from sorted arrays, with no search per entry. What is left
 * is that one sort and, per index, a sort of its distinct values.
 *
 * Each object is turned into its record as it is added, so the caller need not keep the objects (nor their bytes).
 * Records can also come from a snapshot of the index (`addSnapshotChunk`): already in name order, so the sort is a
 * single pass.
 */
import type { ExtensionObject } from '@svc/plugin-api';
import type { FieldIndex, NameIndex } from './field-index.js';
import {
  compareRecords,
  type IndexRecord,
  newRecord,
  recordKey,
  setRecordLabels,
  setRecordSlot,
} from './index-record.js';
import { copyLabels, type LabelIndex } from './label-index.js';

/** The parts of a ModelIndex that a load fills. */
export interface LoadTarget {
  readonly byName: NameIndex;
  readonly labels: LabelIndex;
  readonly fieldIndexes: readonly FieldIndex[];
  readonly modelLabel: string;
}

export class IndexLoader {
  private records: IndexRecord[] = [];

  constructor(private readonly target: LoadTarget) {}

  /** Takes one object in; throws if an indexFunc throws on it (the index is still untouched). */
  add(object: ExtensionObject): void {
    const name = object.metadata.name;
    if (name === undefined) return;
    const { fieldIndexes } = this.target;
    const record = newRecord(name, fieldIndexes.length);
    // The record holds only a copy of the labels and the extracted values: the object itself can go.
    setRecordLabels(record, copyLabels(object.metadata.labels));
    for (let i = 0; i < fieldIndexes.length; i++) {
      const index = fieldIndexes[i]!;
      setRecordSlot(record, i, index.keysOf(index.extract(object)));
    }
    this.records.push(record);
  }

  /**
   * Takes in records a snapshot of an index with the same indexes wrote (`ModelIndex.snapshotChunks`): one chunk's
   * JSON array of records, as they were kept (values as sort keys, labels copied). Throws on anything that is not
   * such an array, leaving the index untouched.
   */
  addSnapshotChunk(json: string): void {
    const slots = this.target.fieldIndexes.length;
    const records: unknown = JSON.parse(json);
    if (!Array.isArray(records)) throw new Error(`${this.target.modelLabel}: an index snapshot chunk is not an array`);
    for (const record of records) {
      if (!isSnapshotRecord(record, slots)) {
        throw new Error(`${this.target.modelLabel}: an index snapshot holds a malformed record`);
      }
      // JSON has no undefined: a record without labels comes back with null.
      if (record[1] === null) record[1] = undefined;
      this.records.push(record as IndexRecord);
    }
  }

  /**
   * Files every object added into the index, which must still be empty. Of objects added under one name the last
   * counts, as with `apply` (the store holds one object per name anyway).
   *
   * When a unique index would hold a value for two objects, throws naming the index, the value and the objects, and
   * leaves the index empty: `apply` does not enforce unique indexes (checkUnique guards writes), but stored data that
   * breaks one can only come from a model that gained a unique index since (a plugin upgrade), and serving that
   * model as declared would be wrong, so its registration fails instead.
   */
  finish(): void {
    const { byName: names, labels, fieldIndexes, modelLabel } = this.target;
    if (names.size > 0) throw new Error(`${modelLabel}: a bulk load needs an empty index`);
    const records = lastPerName(this.records.sort(compareRecords));
    this.records = [];
    // Every index is checked before any is filled.
    const loaded = fieldIndexes.map((index) => index.prepareLoad(records, modelLabel));
    fieldIndexes.forEach((index, i) => {
      index.commitLoad(loaded[i]!);
    });
    labels.load(records);
    names.load(records);
  }
}

/** Keeps, in place, the last record of each run of one name (the sort is stable: the one added last). */
function lastPerName(records: IndexRecord[]): IndexRecord[] {
  let kept = 0;
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (i + 1 < records.length && recordKey(records[i + 1]!) === recordKey(record)) continue;
    records[kept++] = record;
  }
  records.length = kept;
  return records;
}

/** The shape of a record as JSON gives it back: a key, labels (or null), and one string or string list per index. */
function isSnapshotRecord(value: unknown, slots: number): value is unknown[] {
  if (!Array.isArray(value) || value.length !== 2 + slots || typeof value[0] !== 'string') return false;
  const labels = value[1];
  if (labels !== null) {
    if (typeof labels !== 'object' || Array.isArray(labels)) return false;
    for (const label in labels) if (typeof (labels as Record<string, unknown>)[label] !== 'string') return false;
  }
  for (let i = 2; i < value.length; i++) {
    const slot = value[i];
    if (typeof slot !== 'string' && !(Array.isArray(slot) && slot.every((v) => typeof v === 'string'))) return false;
  }
  return true;
}
