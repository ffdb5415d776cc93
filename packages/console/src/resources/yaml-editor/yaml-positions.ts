/**
 * Where a JSON Pointer's value sits in YAML text: the `yaml` package's document keeps each node's source range, so a
 * path such as `/spec/age` leads to the characters of that value. Pure.
 */
import { type Document, isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

/** Character offsets in the text, `to` exclusive. */
export interface TextRange {
  from: number;
  to: number;
}

/** A pointer's keys: `/a~1b/0` → `['a/b', '0']`. */
export function pointerKeys(pointer: string): string[] {
  if (pointer === '' || pointer === '#') return [];
  return pointer
    .replace(/^#/, '')
    .slice(1)
    .split('/')
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const rangeOfNode = (node: Node): TextRange | undefined =>
  node.range ? { from: node.range[0], to: node.range[1] } : undefined;

/**
 * The range of the value `pointer` names. A value that is a map or a list is marked at its key only (its first line),
 * not over every line below it; a path that goes further than the text (a required field left out) is marked at the
 * deepest part that is there: the parent's key, or the document's first line.
 */
export function rangeOfPointer(doc: Document, pointer: string): TextRange {
  let node: unknown = doc.contents;
  // The key that holds the node reached so far: where a map or list value is marked.
  let key: TextRange | undefined;
  for (const step of pointerKeys(pointer)) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === step);
      if (!pair) break;
      key = isScalar(pair.key) ? rangeOfNode(pair.key) : undefined;
      node = pair.value;
    } else if (isSeq(node) && /^\d+$/.test(step) && node.items[Number(step)] !== undefined) {
      key = undefined;
      node = node.items[Number(step)];
    } else {
      break;
    }
  }
  return markOf(node, key) ?? { from: 0, to: 0 };
}

/** A scalar is marked over its text; a map or list at its key, or else its first line; an empty value at its key. */
function markOf(node: unknown, key: TextRange | undefined): TextRange | undefined {
  if (isScalar(node) && node.range && node.range[1] > node.range[0]) return rangeOfNode(node);
  if (key) return key;
  if (isMap(node) || isSeq(node)) return markOf(firstOf(node), undefined) ?? rangeOfNode(node);
  return isScalar(node) ? rangeOfNode(node) : undefined;
}

/** A collection's first written part: a map's first key, a list's first item. */
function firstOf(node: Node): unknown {
  const first = (isMap(node) || isSeq(node) ? node.items[0] : undefined) as unknown;
  return isPair(first) ? first.key : first;
}

/** The text's document with the offsets of its line starts, for `lineOf`. */
export function parseWithLines(text: string): { doc: Document; lines: LineCounter } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true });
  return { doc, lines };
}

/** The 1-based line number of a character offset. */
export const lineOf = (lines: LineCounter, offset: number) => lines.linePos(offset).line;

/** The line `pointer` is marked at in `text` (1-based): what the unit tests check. */
export function lineOfPointer(text: string, pointer: string): number {
  const { doc, lines } = parseWithLines(text);
  return lineOf(lines, rangeOfPointer(doc, pointer).from);
}
