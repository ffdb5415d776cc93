/**
 * A Prometheus histogram's counts kept as plain numbers: what `/metrics` reads at scrape time (metrics/). Hand-written
 * because prom-client hashes and checks the label set on every observation (1.5 µs each, measured), which the request
 * path and the reconcile loop should not pay; here an observation is a comparison or two and three additions.
 */
export class DurationHistogram {
  /** Observations per bucket, not cumulative: `[i]` counts values in (bounds[i-1], bounds[i]]; the last, above all. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  /** `bounds`: the buckets' upper bounds in seconds, ascending (Prometheus' `le`). */
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(seconds: number): void {
    const { bounds } = this;
    let i = 0;
    // Most observations fall in the first buckets, so a scan from the start beats a binary search.
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }

  /** Observations at or below each bound, in order (Prometheus' cumulative `_bucket` values, `+Inf` being `count`). */
  cumulative(): number[] {
    let total = 0;
    return this.bounds.map((_, i) => (total += this.counts[i]!));
  }
}
