/**
 * The walkable indexes of a model. A field index (or indexFunc index) is one B-tree from value (natural order, kept as
 * sort keys) to the group of records holding it: an equality is a lookup, a sort is a walk over it, and a value is
 * stored once however many objects hold it. The name index is the set of all records in name order.
 */
import {
  findByName,
  forEachPairInOrder,
  loadRecordSet,
  loadSortedMap,
  newRecordSet,
  newSortedMap,
  type RecordSet,
  type SortedMap,
  STOP,
} from './btree.js';
import { type IndexRecord, recordKey, recordName, recordSlot, setRecordSlot } from './index-record.js';
import { type Extractor, NO_VALUE, type Slot } from './index-values.js';
import { compareCodeUnits, fromNaturalSortKey, naturalSortKey } from './natural-compare.js';
import {
  DerivedGroup,
  forEachMember,
  type GrowingGroup,
  groupAdd,
  groupAppend,
  groupDelete,
  groupSize,
  pushMembers,
  type RecordGroup,
  sealGroup,
  type WalkInNameOrder,
} from './record-group.js';

/** An index a query can walk in value order: what the page walker needs. */
export interface OrderedIndex {
  readonly name: string;
  /** True while some object has several values: a walk must then skip objects it has already met. */
  readonly multiValued: boolean;
  /** Where an object's value sits in its record (NAME_SLOT: the name itself). */
  readonly slot: number;
  /**
   * Visits each value's sort key and its group in value order (reversed when descending) until `visit` returns false.
   * Records hold the same keys in `slot`: both compare by code unit (compareCodeUnits).
   */
  forEachGroup(descending: boolean, visit: (key: string, group: RecordGroup) => boolean): void;
}

/** The slot number of the name index: a name is its own value. */
export const NAME_SLOT = -1;

/**
 * A field index keeps each value as its sort key (in the tree and in the records' slots), so every comparison runs
 * natively in code-unit order: naturalSortKey(value), or the value itself when its form makes code-unit order natural
 * order already (`codeUnitOrder`: the server's fixed-width timestamps). Values go in through `keysOf` (a slot) and
 * `group`/`holder` (one value); `counts` gives values back.
 */
export class FieldIndex implements OrderedIndex {
  private byValue: SortedMap<RecordGroup> = newSortedMap();
  /** The sort key of one value: what a walk's group keys and the records' slots are compared with. */
  readonly key: (value: string) => string;
  private readonly valueOf: (key: string) => string;
  private multiValuedObjects = 0;
  /**
   * With `valuelessFrom`, the objects without a value are not filed: they are counted here, and their group is read
   * off the name index when asked for (a DerivedGroup). For an index that nearly no object has a value of.
   */
  private valueless = 0;
  /** Scratch pair for lookups (sorted-btree fills it instead of allocating one per call). */
  private readonly reusedPair = [] as unknown as [string, RecordGroup];

  constructor(
    readonly name: string,
    readonly unique: boolean,
    readonly extract: Extractor,
    readonly slot: number,
    codeUnitOrder = false,
    private readonly valuelessFrom?: WalkInNameOrder,
  ) {
    this.key = codeUnitOrder ? (value) => value : naturalSortKey;
    this.valueOf = codeUnitOrder ? (key) => key : fromNaturalSortKey;
  }

  /** An extracted slot as this index keeps it: each value as its sort key (no value stays ''). */
  keysOf(slot: Slot): Slot {
    return typeof slot === 'string' ? this.key(slot) : slot.map(this.key);
  }

  get multiValued(): boolean {
    return this.multiValuedObjects > 0;
  }

  group(value: string): RecordGroup | undefined {
    if (this.countsOnly(value)) return this.valuelessGroup();
    return this.byValue.get(this.key(value));
  }

  forEachGroup(descending: boolean, visit: (value: string, group: RecordGroup) => boolean): void {
    const valueless = this.valuelessFrom && this.valuelessGroup();
    // No value sorts before every value (the empty string first in either order of values).
    if (valueless && !descending && !visit(NO_VALUE, valueless)) return;
    let completed = true;
    forEachPairInOrder(this.byValue, descending, (value, group) => (completed = visit(value, group)));
    if (valueless && descending && completed) visit(NO_VALUE, valueless);
  }

  /** True for the no-value of an index whose valueless objects are counted, not filed (see `valueless`). */
  private countsOnly(value: string): boolean {
    return value === NO_VALUE && this.valuelessFrom !== undefined;
  }

  private valuelessGroup(): DerivedGroup | undefined {
    if (this.valueless === 0) return undefined;
    const slot = this.slot;
    const holds = (record: IndexRecord) => {
      const own = recordSlot(record, slot);
      return typeof own === 'string' ? own === NO_VALUE : own.includes(NO_VALUE);
    };
    return new DerivedGroup(this.valueless, this.valuelessFrom!, holds);
  }

  /**
   * Files `record` under each key of `slot` (from keysOf). Returns the slot to keep in the record, using the key strings
   * the index already holds: 100,000 objects with `spec.gender: FEMALE` then share one string instead of 100,000 copies.
   */
  add(record: IndexRecord, slot: Slot): Slot {
    if (typeof slot === 'string') return this.addValue(record, slot);
    this.multiValuedObjects++;
    return slot.map((value) => this.addValue(record, value));
  }

  remove(record: IndexRecord, slot: Slot): void {
    if (typeof slot === 'string') {
      this.removeValue(record, slot);
      return;
    }
    this.multiValuedObjects--;
    for (const value of slot) this.removeValue(record, value);
  }

  /** Number of objects per value; objects without a value are not counted. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    this.byValue.forEachPair((key, group) => {
      if (key !== NO_VALUE) counts[this.valueOf(key)] = groupSize(group);
    });
    return counts;
  }

  /** Every (value, name) pair this index holds, in value order (for claiming a unique index's values in a database). */
  pairs(): Array<[value: string, name: string]> {
    const pairs: Array<[string, string]> = [];
    this.byValue.forEachPair((key, group) => {
      if (key === NO_VALUE) return;
      const value = this.valueOf(key);
      forEachMember(group, (record) => {
        pairs.push([value, recordName(record)]);
        return true;
      });
    });
    return pairs;
  }

  /** A name holding `value` other than `except`, if any: for unique-index checks. */
  holder(value: string, except: string): string | undefined {
    const exceptKey = naturalSortKey(except);
    let found: IndexRecord | undefined;
    forEachMember(this.byValue.get(this.key(value)), (record) => {
      if (recordKey(record) !== exceptKey) found = record;
      return found === undefined;
    });
    return found && recordName(found);
  }

  /**
   * The first step of a bulk load into this empty index (so that a model checks all its indexes before it changes
   * any): files `records` (in name order, each holding its slot from keysOf) by key, replaces each slot with the
   * index's own key strings, and builds what `commitLoad` installs. For a unique index, a value held twice throws
   * instead (naming `modelLabel`, the index, the value and its holders).
   */
  prepareLoad(records: readonly IndexRecord[], modelLabel: string): LoadedValues {
    const buckets = new ValueBuckets();
    let multiValuedObjects = 0;
    let valueless = 0;
    const file = (record: IndexRecord, value: string): string => {
      if (!this.countsOnly(value)) return buckets.file(record, value);
      valueless++;
      return NO_VALUE;
    };
    for (const record of records) {
      const slot = recordSlot(record, this.slot);
      if (typeof slot === 'string') {
        setRecordSlot(record, this.slot, file(record, slot));
      } else {
        multiValuedObjects++;
        setRecordSlot(
          record,
          this.slot,
          slot.map((value) => file(record, value)),
        );
      }
    }
    const { values, groups } = buckets;
    if (this.unique) this.checkLoaded(values, groups, modelLabel);
    const order = Array.from(values.keys()).sort((a, b) => compareCodeUnits(values[a]!, values[b]!));
    const byValue = loadSortedMap(
      order.map((at) => values[at]!),
      order.map((at) => sealGroup(groups[at]!)),
    );
    return { byValue, multiValuedObjects, valueless };
  }

  commitLoad(loaded: LoadedValues): void {
    this.byValue = loaded.byValue;
    this.multiValuedObjects = loaded.multiValuedObjects;
    this.valueless = loaded.valueless;
  }

  private checkLoaded(values: readonly string[], groups: readonly GrowingGroup[], modelLabel: string): void {
    // An object without a value holds no value: checkUnique lets any number of them be.
    const at = values.findIndex((value, i) => value !== NO_VALUE && groupSize(groups[i]) > 1);
    if (at < 0) return;
    const holders: IndexRecord[] = [];
    pushMembers(groups[at], holders);
    const named = holders.slice(0, 3).map((record) => `"${recordName(record)}"`);
    if (holders.length > 3) named.push(`${holders.length - 3} more`);
    const where = `${modelLabel}: unique index "${this.name}"`;
    throw new Error(
      `${where} holds value "${this.valueOf(values[at]!)}" for ${holders.length} objects: ${named.join(', ')}`,
    );
  }

  private addValue(record: IndexRecord, value: string): string {
    if (this.countsOnly(value)) {
      this.valueless++;
      return NO_VALUE;
    }
    // A unique index mostly meets new values: try to insert first (one descent when new). Any other index mostly
    // meets values it holds: look the value up first, and grow its group in place (arrays and B-trees change in
    // place, so only a group that changes form costs a second descent).
    if (this.unique && this.byValue.set(value, record, false)) return value;
    const pair = this.byValue.getPairOrNextHigher(value, this.reusedPair);
    if (pair === undefined || pair[0] !== value) {
      this.byValue.set(value, record);
      return value;
    }
    const [canonical, group] = pair;
    const grown = groupAdd(group, record);
    if (grown !== group) this.byValue.set(canonical, grown);
    return canonical;
  }

  private removeValue(record: IndexRecord, value: string): void {
    if (this.countsOnly(value)) {
      this.valueless--;
      return;
    }
    this.byValue.editRange(value, value, true, (_key, group) => {
      const shrunk = groupDelete(group, record);
      if (shrunk === undefined) return { delete: true };
      return shrunk === group ? undefined : { value: shrunk };
    });
  }
}

/** A field index's content built by a bulk load, before it is installed. */
export interface LoadedValues {
  readonly byValue: SortedMap<RecordGroup>;
  readonly multiValuedObjects: number;
  readonly valueless: number;
}

/** Records filed by value during a bulk load: each distinct value once (its first instance), with its group. */
class ValueBuckets {
  readonly values: string[] = [];
  readonly groups: GrowingGroup[] = [];
  private readonly positions = new Map<string, number>();

  /** Files `record`, which sorts after the records filed so far; returns the value string to keep. */
  file(record: IndexRecord, value: string): string {
    let at = this.positions.get(value);
    if (at === undefined) {
      this.positions.set(value, (at = this.values.length));
      this.values.push(value);
    }
    this.groups[at] = groupAppend(this.groups[at], record);
    return this.values[at]!;
  }
}

/** All records in name order, found by name; each record is its own group (a name is unique). */
export class NameIndex implements OrderedIndex {
  readonly name = 'metadata.name';
  readonly multiValued = false;
  readonly slot = NAME_SLOT;
  private set: RecordSet = newRecordSet();

  get size(): number {
    return this.set.size;
  }

  get(name: string): IndexRecord | undefined {
    return findByName(this.set, name);
  }

  add(record: IndexRecord): void {
    this.set.set(record, undefined);
  }

  remove(record: IndexRecord): void {
    this.set.delete(record);
  }

  /** Bulk load into this empty index: `records` are distinct and in name order. */
  load(records: IndexRecord[]): void {
    this.set = loadRecordSet(records);
  }

  names(): string[] {
    const names: string[] = [];
    this.set.forEachPair((record) => void names.push(recordName(record)));
    return names;
  }

  /** Visits the records in name order until `visit` returns false. */
  walk(visit: (record: IndexRecord) => boolean): void {
    this.set.forEachPair((record) => (visit(record) ? undefined : STOP));
  }

  /** The value of each record is its name's sort key (a walk only tests values for equality and order). */
  forEachGroup(descending: boolean, visit: (value: string, group: RecordGroup) => boolean): void {
    forEachPairInOrder(this.set, descending, (record) => visit(recordKey(record), record));
  }
}
