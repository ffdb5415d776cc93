/**
 * The default `metadata.labels` index: label key → label value → the records carrying that label. Two levels rather
 * than one map of `key=value` strings, so a label selector on a key (`k`, `!k`, `k notin (…)`) finds all of that key's
 * groups without scanning other keys, and no `key=value` string is built per object.
 *
 * As a field index (`countBy`, a field selector on `metadata.labels`) its values read as `key=value`.
 */
import { type IndexRecord, recordLabels } from './index-record.js';
import {
  type GrowingGroup,
  groupAdd,
  groupAppend,
  groupDelete,
  groupSize,
  type RecordGroup,
  sealGroup,
} from './record-group.js';

export type Labels = Readonly<Record<string, string>>;

export const LABELS_INDEX = 'metadata.labels';

interface KeyEntry {
  byValue: Map<string, RecordGroup>;
  /** The value strings as first seen, so records share one instance of each value. */
  values: Map<string, string>;
}

type Grow = (group: RecordGroup | undefined, record: IndexRecord) => RecordGroup;

export class LabelIndex {
  private readonly keys = new Map<string, KeyEntry>();

  /** Files `record` under each of its labels; returns the labels to keep in the record (a private copy). */
  add(record: IndexRecord, labels: unknown): Labels | undefined {
    const copy = copyLabels(labels);
    if (copy) for (const key of Object.keys(copy)) copy[key] = this.file(key, copy[key]!, record, groupAdd);
    return copy;
  }

  /**
   * Bulk load into this empty index. `records` are in name order and hold copies of their labels (copyLabels), whose
   * values are replaced with the index's own strings.
   */
  load(records: readonly IndexRecord[]): void {
    // Records come in name order, so each group grows by appending; only once all are in, a group takes its form.
    // The index starts empty, so every group met here was made by groupAppend.
    const append = groupAppend as Grow;
    for (const record of records) {
      const copy = recordLabels(record) as Record<string, string> | undefined;
      if (copy) for (const key of Object.keys(copy)) copy[key] = this.file(key, copy[key]!, record, append);
    }
    for (const { byValue } of this.keys.values()) {
      for (const [value, group] of byValue) byValue.set(value, sealGroup(group as GrowingGroup));
    }
  }

  remove(record: IndexRecord, labels: Labels | undefined): void {
    if (!labels) return;
    for (const key of Object.keys(labels)) {
      const entry = this.keys.get(key);
      const value = labels[key]!;
      const group = entry?.byValue.get(value);
      if (!entry || group === undefined) continue;
      const shrunk = groupDelete(group, record);
      if (shrunk === undefined) {
        entry.byValue.delete(value);
        entry.values.delete(value);
      } else if (shrunk !== group) {
        entry.byValue.set(value, shrunk);
      }
      if (entry.byValue.size === 0) this.keys.delete(key);
    }
  }

  /** Files `record` under the label key=value with `grow`; returns the value string the index keeps. */
  private file(key: string, value: string, record: IndexRecord, grow: Grow): string {
    let entry = this.keys.get(key);
    if (!entry) this.keys.set(key, (entry = { byValue: new Map(), values: new Map() }));
    const group = entry.byValue.get(value);
    const grown = grow(group, record);
    if (grown !== group) entry.byValue.set(value, grown);
    let canonical = entry.values.get(value);
    if (canonical === undefined) entry.values.set(value, (canonical = value));
    return canonical;
  }

  group(key: string, value: string): RecordGroup | undefined {
    return this.keys.get(key)?.byValue.get(value);
  }

  /** Every group of one key: together, the objects carrying the key (disjoint: an object has one value per key). */
  groupsOf(key: string): RecordGroup[] {
    const entry = this.keys.get(key);
    return entry ? [...entry.byValue.values()] : [];
  }

  /** Number of objects per `key=value`. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const [key, entry] of this.keys) {
      for (const [value, group] of entry.byValue) counts[`${key}=${value}`] = groupSize(group);
    }
    return counts;
  }
}

/** A private copy of an object's labels: string values only. */
export function copyLabels(labels: unknown): Record<string, string> | undefined {
  if (labels === null || typeof labels !== 'object') return undefined;
  let copy: Record<string, string> | undefined;
  for (const [key, value] of Object.entries(labels)) {
    // `__proto__` cannot be copied as a plain property (and is no valid label key): leave it out everywhere.
    if (typeof value === 'string' && key !== '__proto__') (copy ??= {})[key] = value;
  }
  return copy;
}

/** Whether two label sets are equal (so an update that keeps the labels leaves the label index alone). */
export function sameLabels(a: Labels | undefined, b: unknown): boolean {
  const keysA = a ? Object.keys(a) : [];
  if (b === null || typeof b !== 'object') return keysA.length === 0;
  const entriesB = Object.entries(b).filter(([key, value]) => typeof value === 'string' && key !== '__proto__');
  return entriesB.length === keysA.length && entriesB.every(([key, value]) => a !== undefined && a[key] === value);
}

/** `key=value` for each label: the labels index read as a multi-value field index. */
export function labelPairs(labels: Labels | undefined): string[] {
  return labels ? Object.keys(labels).map((key) => `${key}=${labels[key]}`) : [];
}
