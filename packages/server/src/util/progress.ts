/** What a progress line reports: how many items are done so far and how long the work has run. */
export interface ProgressPoint {
  done: number;
  elapsedMs: number;
}

export interface ProgressOptions {
  /** The least time between two lines (default 1 s). */
  intervalMs?: number;
  /** Milliseconds from any fixed origin; tests give a fake clock. */
  now?: () => number;
}

/**
 * Counts the items of long work and calls `report` at most once per interval, however many items pass: a log line
 * about every second, never one per object. The first line comes one interval after the start, so work that ends
 * sooner reports nothing until `finish`.
 */
export class Progress {
  private done = 0;
  private readonly startedAt: number;
  private lastAt: number;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(
    private readonly report: (point: ProgressPoint) => void,
    options: ProgressOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.now = options.now ?? Date.now;
    this.startedAt = this.lastAt = this.now();
  }

  /** Counts `count` more items done; reports if an interval has passed since the last line (or the start). */
  add(count = 1): void {
    this.done += count;
    const now = this.now();
    if (now - this.lastAt < this.intervalMs) return;
    this.lastAt = now;
    this.report({ done: this.done, elapsedMs: now - this.startedAt });
  }

  /** The totals, and whether the work was long enough to report along the way (worth a closing line at info). */
  finish(): ProgressPoint & { long: boolean } {
    const elapsedMs = this.now() - this.startedAt;
    return { done: this.done, elapsedMs, long: elapsedMs >= this.intervalMs };
  }
}
