/**
 * Limits on the JSON svc accepts, checked without recursion so that the check itself cannot overflow the stack.
 * Deep documents are refused before any patch, validation or copy runs: each of those recurses, and an object stored
 * deeper than they can walk could be neither patched nor deleted afterwards.
 */

/** How deeply objects and arrays may nest in a request body or a stored object (the top level counts as 1). */
export const MAX_JSON_DEPTH = 100;

/**
 * How many values a request body may hold: objects and arrays, and every member of one (counted by their commas). An
 * object of svc's kind holds hundreds; 4 MiB of `[[[…]]]` or of one-character keys holds two million, and parsing,
 * depth-checking, validating and copying those held the event loop for a second (`npm run bench:stall`).
 */
export const MAX_JSON_VALUES = 100_000;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * Why a JSON text must be refused before it is parsed, or undefined: nesting deeper than MAX_JSON_DEPTH, more values
 * than MAX_JSON_VALUES, or a string holding a lone UTF-16 surrogate (`"\ud800"`), which is not Unicode text and
 * cannot be stored or sent as UTF-8. Malformed JSON is left for the parser to report.
 */
export function jsonTextProblem(text: string): string | undefined {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === QUOTE) inString = false;
      else if (code === BACKSLASH) {
        if (text.charCodeAt(i + 1) === 0x75 /* u */) {
          const unit = hexUnit(text, i + 2);
          if (unit >= 0xdc00 && unit <= 0xdfff) return loneSurrogate(i);
          if (unit >= 0xd800 && unit <= 0xdbff) {
            const next =
              text.charCodeAt(i + 6) === BACKSLASH && text.charCodeAt(i + 7) === 0x75 ? hexUnit(text, i + 8) : -1;
            if (next < 0xdc00 || next > 0xdfff) return loneSurrogate(i);
            i += 6;
          }
          i += 5;
        } else i++;
      }
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (++depth > MAX_JSON_DEPTH) return `the JSON document nests deeper than ${MAX_JSON_DEPTH} levels`;
      if (++values > MAX_JSON_VALUES) return tooManyValues();
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--;
    else if (code === COMMA && ++values > MAX_JSON_VALUES) return tooManyValues();
  }
  return undefined;
}

/**
 * The first key given twice in one object of a valid JSON text, or undefined. JSON.parse keeps the last silently; a
 * reader that must answer as YAML does (server-side apply) refuses it. One pass, one Set per open object.
 */
export function duplicateJsonKey(text: string): string | undefined {
  // One entry per open object or array: the keys seen so far in an object, null for an array.
  const open: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === BACKSLASH) {
          escaped = true;
          i++;
        } else if (c === QUOTE) break;
      }
      const keys = open[open.length - 1];
      if (keys && expectKey) {
        const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
    } else if (code === OPEN_OBJECT) {
      open.push(new Set());
      expectKey = true;
    } else if (code === OPEN_ARRAY) open.push(null);
    else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) open.pop();
    else if (code === COMMA) expectKey = (open[open.length - 1] ?? null) !== null;
  }
  return undefined;
}

/** True when a parsed value nests objects and arrays deeper than `max` levels (walked with a stack, not recursion). */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

function tooManyValues(): string {
  return `the JSON document holds more than ${MAX_JSON_VALUES} values (objects, arrays and their members)`;
}

function hexUnit(text: string, at: number): number {
  const hex = text.slice(at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? Number.parseInt(hex, 16) : -1;
}

function loneSurrogate(at: number): string {
  return `the JSON document has a string with a lone UTF-16 surrogate escape at character ${at}; strings must be Unicode text`;
}
