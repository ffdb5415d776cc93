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
  // Fast path: skip the common prefix by code unit; only a difference inside a digit run needs the numeric rule.
  const length = Math.min(a.length, b.length);
  let k = 0;
  while (k < length && a.charCodeAt(k) === b.charCodeAt(k)) k++;
  // A proper prefix comes first (also when it ends inside a digit run: the longer run is larger or has more zeros).
  if (k === length) return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
  const ca = a.charCodeAt(k);
  const cb = b.charCodeAt(k);
  // Start of the digit run the difference falls in (runs before it are identical in both strings).
  let start = k;
  while (start > 0 && isDigit(a.charCodeAt(start - 1))) start--;
  if (start === k && !(isDigit(ca) && isDigit(cb))) return ca < cb ? -1 : 1;
  if (start < k && !isDigit(ca) && !isDigit(cb)) return ca < cb ? -1 : 1;
  const order = compareDigitRuns(a, start, b, start);
  if (order.result !== 0) return order.result;
  return compareTokens(a, order.endA, b, order.endB);
}

/** The general token-by-token comparison, from positions i and j. */
function compareTokens(a: string, i: number, b: string, j: number): number {
  const lengthA = a.length;
  const lengthB = b.length;
  while (i < lengthA && j < lengthB) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      const order = compareDigitRuns(a, i, b, j);
      if (order.result !== 0) return order.result;
      i = order.endA;
      j = order.endB;
      continue;
    }
    if (ca !== cb) return ca < cb ? -1 : 1;
    i++;
    j++;
  }
  // One string ran out: the shorter remainder (a prefix in token terms) comes first.
  if (i < lengthA) return 1;
  if (j < lengthB) return -1;
  return 0;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Reused result holder, so comparing digit runs allocates nothing (the function is not reentrant, nor needs to be). */
const runOrder = { result: 0, endA: 0, endB: 0 };

function compareDigitRuns(a: string, startA: number, b: string, startB: number): typeof runOrder {
  let endA = startA;
  while (endA < a.length && isDigit(a.charCodeAt(endA))) endA++;
  let endB = startB;
  while (endB < b.length && isDigit(b.charCodeAt(endB))) endB++;
  let significantA = startA;
  while (significantA < endA - 1 && a.charCodeAt(significantA) === 48) significantA++;
  let significantB = startB;
  while (significantB < endB - 1 && b.charCodeAt(significantB) === 48) significantB++;

  runOrder.endA = endA;
  runOrder.endB = endB;
  const digitsA = endA - significantA;
  const digitsB = endB - significantB;
  if (digitsA !== digitsB) {
    runOrder.result = digitsA < digitsB ? -1 : 1;
    return runOrder;
  }
  for (let k = 0; k < digitsA; k++) {
    const da = a.charCodeAt(significantA + k);
    const db = b.charCodeAt(significantB + k);
    if (da !== db) {
      runOrder.result = da < db ? -1 : 1;
      return runOrder;
    }
  }
  // Same value: fewer leading zeros (the shorter run) first.
  const runA = endA - startA;
  const runB = endB - startB;
  runOrder.result = runA === runB ? 0 : runA < runB ? -1 : 1;
  return runOrder;
}
