/**
 * `sorted-btree` as an ES module, and the two shapes the index uses. The package is CommonJS with
 * `exports.default = BTree`: Node's ESM loader hands a default import the whole `module.exports`, while vitest unwraps
 * it to the class, so take `.default` when it is there.
 *
 * Nodes hold up to 64 keys rather than the default 32: that takes less memory per entry (fewer, fuller nodes) at no
 * measurable cost in speed.
 */
import btreeModule from 'sorted-btree';
// A file rather than `sorted-btree/extended`: the package has no exports map, and Node's ESM loader imports no folders.
import { bulkLoad } from 'sorted-btree/extended/bulkLoad.js';
import { compareRecords, type IndexRecord, probeRecord, recordKey } from './index-record.js';
import { compareCodeUnits } from './natural-compare.js';

export type BTree<K, V> = import('sorted-btree').default<K, V>;
type BTreeClass = (typeof btreeModule)['default'];

const BTreeConstructor: BTreeClass =
  (btreeModule as unknown as { default?: BTreeClass }).default ?? (btreeModule as unknown as BTreeClass);

const NODE_SIZE = 64;

/** String keys (the index's sort keys) in code-unit order, each with a value. */
export type SortedMap<V> = BTree<string, V>;

/**
 * Records in name order, keys only: sorted-btree shares one array for the values of a key-only tree, so an entry
 * costs a single pointer (half of a name → record map).
 */
export type RecordSet = BTree<IndexRecord, undefined>;

export function newSortedMap<V>(): SortedMap<V> {
  return new BTreeConstructor<string, V>(undefined, compareCodeUnits, NODE_SIZE);
}

export function newRecordSet(): RecordSet {
  return new BTreeConstructor<IndexRecord, undefined>(undefined, compareRecords, NODE_SIZE);
}

/** A map of `keys` (distinct, in code-unit order) to `values`, built in one pass: no search per entry. */
export function loadSortedMap<V>(keys: string[], values: V[]): SortedMap<V> {
  return bulkLoad(keys, values, NODE_SIZE, compareCodeUnits);
}

/**
 * A set of `records` (distinct, in name order), built in one pass. bulkLoad gives each leaf `values.slice(…)`; a leaf
 * given no array shares the library's one array of undefineds, as a key-only tree grown by `set` does (8 bytes less
 * per entry). So the values passed are an array-like whose slices are undefined: any value read from it is undefined.
 */
export function loadRecordSet(records: IndexRecord[]): RecordSet {
  const noValues = { length: records.length, slice: () => undefined } as unknown as undefined[];
  return bulkLoad(records, noValues, NODE_SIZE, compareRecords);
}

export function isBTree(value: unknown): value is BTree<unknown, unknown> {
  return value instanceof BTreeConstructor;
}

/** The record named `name` in `set`, if any. */
export function findByName(set: RecordSet, name: string): IndexRecord | undefined {
  const probe = probeRecord(name);
  const pair = set.getPairOrNextHigher(probe);
  return pair && recordKey(pair[0]) === recordKey(probe) ? pair[0] : undefined;
}

/** Returned from a sorted-btree `forEachPair` callback to stop the walk. */
export const STOP = { break: true } as const;

/** Visits the pairs in key order (reversed when `descending`) until `visit` returns false. */
export function forEachPairInOrder<K, V>(
  tree: BTree<K, V>,
  descending: boolean,
  visit: (key: K, value: V) => boolean,
): void {
  if (!descending) {
    tree.forEachPair((key, value) => (visit(key, value) ? undefined : STOP));
    return;
  }
  const reused: (K | V)[] = [];
  for (const [key, value] of tree.entriesReversed(undefined, reused)) if (!visit(key, value)) return;
}
