/**
 * "Did you mean": the candidate closest to what was typed, if it is close enough to be a likely typo. Used for
 * unknown flags and commands, so a mistake is an error that helps rather than something silently ignored.
 */
export function closest(typed: string, candidates: readonly string[], maxDistance = 3): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = distance(typed, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= maxDistance ? best : undefined;
}

/** `; did you mean "x"?` or nothing, to append to an error message. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const suggestion = closest(typed, candidates);
  return suggestion ? `; did you mean "${suggestion}"?` : '';
}

/** Edit distance (Levenshtein); words here are short, so the quadratic table costs nothing. */
export function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
