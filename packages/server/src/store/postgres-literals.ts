/**
 * Values written into the text of a PostgreSQL statement, for the group commit's scripts (postgres-batch.ts): the
 * simple protocol, which runs several statements in one round trip, takes no parameters. Pure functions.
 */
import { isUtf8 } from 'node:buffer';
import pg from 'pg';

/**
 * A value as SQL text: strings quoted by pg's escapeLiteral, bytes in hex, integers checked. An array is one quoted
 * array literal (`E'{…}'`), which the statement casts to its type: PostgreSQL plans it as one constant, where ARRAY[…]
 * of a group's hundreds of elements made planning, which copies every element's expression, take 40% of a backend's
 * time (perf, 64 writers).
 */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'number') return String(checkInteger(value));
  if (Buffer.isBuffer(value)) return `'\\x${value.toString('hex')}'`;
  if (Array.isArray(value)) return arrayLiteral(value);
  throw new TypeError(`no SQL literal for ${typeof value}`);
}

/**
 * How a character of an array's element is written in the `E'{…}'` literal: the element is double-quoted, so the
 * array's input takes a backslash or a double quote escaped by a backslash, and the literal then doubles every
 * backslash and single quote. In bytea's escape format a backslash is doubled once more, before both.
 */
const IN_TEXT: Record<string, string> = { '\\': '\\'.repeat(4), '"': '\\\\"', "'": "''" };
const IN_BYTEA: Record<string, string> = { ...IN_TEXT, '\\': '\\'.repeat(8) };
const ESCAPED = /[\\"']/g;

/**
 * An array as one literal, each element escaped in one pass. Written by hand: pg's own encoding escapes the elements,
 * then the whole literal again, then bytea's text once more, each pass a copy of a group's tens of kilobytes of
 * JSON; building the statement's text took about 5% of the main thread under load.
 */
function arrayLiteral(items: readonly unknown[]): string {
  let text = "E'{";
  for (let i = 0; i < items.length; i++) {
    if (i > 0) text += ',';
    const item = items[i];
    if (item === null || item === undefined) text += 'NULL';
    else if (typeof item === 'number') text += checkInteger(item);
    else if (typeof item === 'boolean') text += item ? 't' : 'f';
    else if (typeof item === 'string') text += `"${item.replace(ESCAPED, (c) => IN_TEXT[c]!)}"`;
    else if (Buffer.isBuffer(item)) text += `"${byteaText(item)}"`;
    else throw new TypeError(`no SQL array element for ${typeof item}`);
  }
  return `${text}}'`;
}

function checkInteger(value: number): number {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
  return value;
}

/**
 * Bytes as bytea's text input, escaped as an array's element (above): UTF-8 text without NUL (a stored object's
 * JSON) in the escape format, about 1.2 times its size in the statement; anything else in hex, twice its size.
 */
function byteaText(value: Buffer): string {
  return isUtf8(value) && !value.includes(0)
    ? value.toString('utf8').replace(ESCAPED, (c) => IN_BYTEA[c]!)
    : `\\\\\\\\x${value.toString('hex')}`;
}
