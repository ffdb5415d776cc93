/**
 * `sorted-btree` as an ES module. It is CommonJS with `exports.default = BTree`: Node's ESM loader hands a default
 * import the whole `module.exports`, while vitest unwraps it to the class, so take `.default` when it is there.
 */
import btreeModule from 'sorted-btree';
import { naturalCompare } from './natural-compare.js';

export type BTree<K, V> = import('sorted-btree').default<K, V>;
type BTreeClass = (typeof btreeModule)['default'];

const BTreeConstructor: BTreeClass =
  (btreeModule as unknown as { default?: BTreeClass }).default ?? (btreeModule as unknown as BTreeClass);

/** A sorted map with string keys in natural order. */
export type SortedMap<V> = BTree<string, V>;

export function newSortedMap<V>(): SortedMap<V> {
  return new BTreeConstructor<string, V>(undefined, naturalCompare);
}

export function isSortedMap(value: unknown): value is SortedMap<unknown> {
  return value instanceof BTreeConstructor;
}

/** Returned from a sorted-btree `forEachPair` callback to stop the walk. */
export const STOP = { break: true } as const;

/** Visits the pairs in key order (reversed when `descending`) until `visit` returns false. */
export function forEachPairInOrder<V>(
  map: SortedMap<V>,
  descending: boolean,
  visit: (key: string, value: V) => boolean,
): void {
  if (!descending) {
    map.forEachPair((key, value) => (visit(key, value) ? undefined : STOP));
    return;
  }
  const reused: (string | V)[] = [];
  for (const [key, value] of map.entriesReversed(undefined, reused)) if (!visit(key, value)) return;
}
