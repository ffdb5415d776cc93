/**
 * Natural order of index values: runs of ASCII digits compare by numeric value, everything else by UTF-16 code unit.
 * So "2" < "10", "age9" < "age10", and RFC 3339 timestamps keep their chronological order.
 *
 * Written by hand rather than with `localeCompare`/`Intl.Collator({ numeric: true })` on purpose: this runs inside
 * every B-tree comparison of every index, so it must be fast and allocation-free, and it must be a total order
 * consistent with equality (0 only for identical strings). Collators are locale-dependent, treat distinct strings as
 * equal (case, accents, "01" vs "1") and would silently merge or reorder index entries; converting digit runs to
 * Number loses precision past 2^53.
 *
 * The order, precisely: a string is read as a sequence of tokens, each a maximal run of digits or one other code unit;
 * sequences compare token by token and a proper prefix comes first. Two digit runs compare by value (longer run of
 * significant digits = larger, else digit by digit), then, at equal value, the run with fewer leading zeros first.
 * A digit run against another code unit compares by the run's first digit, so all digit runs sit between "/" and ":"
 * like the digits themselves do; that keeps the order transitive.
 */
export function naturalCompare(a: string, b: string): number {
  if (a === b) return 0;
  const lengthA = a.length;
  const lengthB = b.length;
  const length = Math.min(lengthA, lengthB);
  // Skip the common prefix by code unit: everything before the first difference is equal in both token sequences.
  let k = 0;
  let ca = 0;
  let cb = 0;
  while (k < length) {
    ca = a.charCodeAt(k);
    cb = b.charCodeAt(k);
    if (ca !== cb) break;
    k++;
  }
  // A proper prefix comes first (also when it ends inside a digit run: the longer run is larger or has more zeros).
  if (k === length) return lengthA < lengthB ? -1 : lengthA > lengthB ? 1 : 0;
  const digitA = isDigit(ca);
  const digitB = isDigit(cb);
  // No digit at the difference: any digit run before it ends there in both strings, equal; the code units decide.
  if (!digitA && !digitB) return ca < cb ? -1 : 1;
  let start = k;
  while (start > 0 && isDigit(a.charCodeAt(start - 1))) start--;
  if (digitA !== digitB) {
    // A new digit run against another character: digits sit between '/' and ':' as the code units do.
    if (start === k) return ca < cb ? -1 : 1;
    // A shared run continues in one string only: that run is longer, so larger or (all zeros) with more zeros.
    return digitA ? 1 : -1;
  }
  return compareRuns(a, b, start, k);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Both strings have digit runs starting at `start` that first differ at `k` (both digits there): compare the runs by
 * value, then by length (fewer leading zeros first).
 */
function compareRuns(a: string, b: string, start: number, k: number): number {
  let endA = k + 1;
  while (endA < a.length && isDigit(a.charCodeAt(endA))) endA++;
  let endB = k + 1;
  while (endB < b.length && isDigit(b.charCodeAt(endB))) endB++;
  let nonZero = start;
  while (nonZero < k && a.charCodeAt(nonZero) === 48) nonZero++;
  if (nonZero < k) {
    // The shared part has a significant digit: the longer run is larger, else the first differing digit decides.
    if (endA !== endB) return endA < endB ? -1 : 1;
    return a.charCodeAt(k) < b.charCodeAt(k) ? -1 : 1;
  }
  // Only zeros before k: compare the significant digits from k on.
  let significantA = k;
  while (significantA < endA - 1 && a.charCodeAt(significantA) === 48) significantA++;
  let significantB = k;
  while (significantB < endB - 1 && b.charCodeAt(significantB) === 48) significantB++;
  const digits = endA - significantA;
  if (digits !== endB - significantB) return digits < endB - significantB ? -1 : 1;
  for (let i = 0; i < digits; i++) {
    const da = a.charCodeAt(significantA + i);
    const db = b.charCodeAt(significantB + i);
    if (da !== db) return da < db ? -1 : 1;
  }
  // Equal value: fewer leading zeros (the shorter run) first. The runs differ, so their lengths do.
  return endA < endB ? -1 : 1;
}

/**
 * A string whose plain code-unit order (`<`) is exactly the natural order of the originals: for any a and b,
 * naturalCompare(a, b) and comparing naturalSortKey(a) with naturalSortKey(b) by `<` agree in sign, and the keys are
 * equal only for equal strings. The name index compares every object it files or finds by name a dozen or more times
 * per B-tree descent; a record keeps its name's key so those comparisons run natively, far faster than
 * naturalCompare (which scans code units one by one). A string without digits is its own key (no copy).
 *
 * Each maximal digit run becomes: its number of significant digits (`0`–`8` for 0–8 digits; `9` and four base-256
 * code units above that), the significant digits, then its number of leading zeros (one code unit below 255; 255 and
 * four base-256 code units above that). Value 0 counts as no significant digits. So a run's key starts with a code
 * unit between `0` and `9`, and meets another character where the run's first digit would (between "/" and ":");
 * runs order by length of significant digits, then digit by digit, then by fewer leading zeros; and a proper prefix
 * still comes first. Every code unit used is below 256, so an ASCII name keeps a one-byte key.
 */
export function naturalSortKey(text: string): string {
  let i = 0;
  while (i < text.length && !isDigit(text.charCodeAt(i))) i++;
  if (i === text.length) return text;
  // Pieces joined once: `+=` would make a key of 13 or more code units a tree of cons strings (three objects instead
  // of one, per key kept in the index).
  const pieces = [text.slice(0, i)];
  while (i < text.length) {
    const start = i;
    while (i < text.length && text.charCodeAt(i) === 48) i++;
    const significantStart = i;
    while (i < text.length && isDigit(text.charCodeAt(i))) i++;
    const significant = i - significantStart;
    pieces.push(
      lengthCode(significant, 9, 48),
      text.slice(significantStart, i),
      lengthCode(significantStart - start, 255, 0),
    );
    const other = i;
    while (i < text.length && !isDigit(text.charCodeAt(i))) i++;
    pieces.push(text.slice(other, i));
  }
  return pieces.join('');
}

/** `count` as one code unit (`base + count`) below `limit`, else the code unit `base + limit` and four base-256 units. */
function lengthCode(count: number, limit: number, base: number): string {
  if (count < limit) return String.fromCharCode(base + count);
  return String.fromCharCode(
    base + limit,
    (count >>> 24) & 255,
    (count >>> 16) & 255,
    (count >>> 8) & 255,
    count & 255,
  );
}

/**
 * Plain code-unit order. It is the natural order wherever every digit run has the same length at the same place, as
 * in the server's own RFC 3339 timestamps (`toISOString`: fixed width): indexes of those use it, natively, instead of
 * naturalCompare (much slower on a timestamp, whose long common prefix it scans by code unit).
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The string a naturalSortKey was made from (the key is invertible, so an index may keep the key alone). */
export function fromNaturalSortKey(key: string): string {
  let i = 0;
  while (i < key.length && !isDigit(key.charCodeAt(i))) i++;
  if (i === key.length) return key;
  let text = key.slice(0, i);
  while (i < key.length) {
    const code = key.charCodeAt(i);
    if (!isDigit(code)) {
      const other = i;
      while (i < key.length && !isDigit(key.charCodeAt(i))) i++;
      text += key.slice(other, i);
      continue;
    }
    // A digit run: its significant digits' count, the digits, then its leading zeros' count.
    let significant = code - 48;
    i++;
    if (significant === 9) [significant, i] = [readCount(key, i), i + 4];
    const digits = key.slice(i, i + significant);
    i += significant;
    let zeros = key.charCodeAt(i);
    i++;
    if (zeros === 255) [zeros, i] = [readCount(key, i), i + 4];
    text += '0'.repeat(zeros) + digits;
  }
  return text;
}

function readCount(key: string, at: number): number {
  return (
    ((key.charCodeAt(at) << 24) |
      (key.charCodeAt(at + 1) << 16) |
      (key.charCodeAt(at + 2) << 8) |
      key.charCodeAt(at + 3)) >>>
    0
  );
}
