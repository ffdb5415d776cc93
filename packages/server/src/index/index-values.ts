/**
 * What an index holds for one object: its value or values as strings (the seed: values are strings; an index without
 * indexFunc reads the field path in its name). Pure.
 *
 * A `Slot` is the compact form kept per object and per index: `''` for no value (so "no value" is an ordinary index
 * value: `f=` is a lookup and sorts put such objects first ascending), a string for one value, and an array of two or
 * more distinct strings for a multi-value index.
 */
import type { ExtensionObject, IndexSpec } from '@svc/plugin-api';

export type Slot = string | readonly string[];

export const NO_VALUE = '';

export type Extractor = (object: ExtensionObject) => Slot;

export function extractorOf(spec: Pick<IndexSpec, 'name' | 'indexFunc'>, modelLabel: string): Extractor {
  const indexFunc = spec.indexFunc;
  if (!indexFunc) {
    const path = spec.name.split('.');
    return (object) => toSlot(readPath(object, path));
  }
  return (object) => {
    let result: unknown;
    try {
      result = indexFunc(object);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(
        `indexFunc of index "${spec.name}" of ${modelLabel} failed on "${object.metadata?.name}": ${why}`,
        {
          cause: error,
        },
      );
    }
    return toSlot(result);
  };
}

/** The values of a slot as a list (none for no value), for the pure matchers. */
export function slotValues(slot: Slot): readonly string[] {
  if (typeof slot !== 'string') return slot;
  return slot === NO_VALUE ? [] : [slot];
}

export function sameSlot(a: Slot, b: Slot): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

/** The smallest (or, for `last`, largest) value: where a multi-value object sorts in each direction. */
export function slotSortKey(slot: Slot, compare: (a: string, b: string) => number, last: boolean): string {
  if (typeof slot === 'string') return slot;
  let key = slot[0]!;
  for (let i = 1; i < slot.length; i++) {
    const order = compare(slot[i]!, key);
    if (last ? order > 0 : order < 0) key = slot[i]!;
  }
  return key;
}

function readPath(object: unknown, path: readonly string[]): unknown {
  let value = object;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Strings as they are, numbers, booleans and bigints as String() does; arrays element-wise; anything else: none. */
function toSlot(value: unknown): Slot {
  if (Array.isArray(value)) {
    const distinct = new Set<string>();
    for (const element of value) {
      const text = scalar(element);
      if (text !== undefined) distinct.add(text);
    }
    const values = [...distinct];
    return values.length === 0 ? NO_VALUE : values.length === 1 ? values[0]! : values;
  }
  return scalar(value) ?? NO_VALUE;
}

function scalar(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    default:
      return undefined;
  }
}
