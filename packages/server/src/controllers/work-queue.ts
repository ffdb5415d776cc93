/**
 * A de-duplicating work queue of object names (after client-go's workqueue). A name waits in the queue at most once
 * however often it is added; while a worker holds it, adding it again marks it to be queued once more when that
 * worker is done, so no two workers ever reconcile one name at the same time and no change is missed. Failures are
 * retried with exponential backoff up to a cap; `addAfter` schedules a later run (a reconciler's `requeueAfter`).
 */
export interface QueueOptions {
  /** First retry delay after a failure; each further failure doubles it. */
  baseDelayMs: number;
  /** The most a retry waits. */
  maxDelayMs: number;
}

export const DEFAULT_QUEUE_OPTIONS: QueueOptions = { baseDelayMs: 10, maxDelayMs: 60_000 };

/** The delay before retry number `failures + 1`. Pure. */
export function backoffDelay(failures: number, options: QueueOptions): number {
  return Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.min(failures, 52));
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private head = 0;
  /** Names waiting in the queue, or marked to be queued again once their worker is done. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  private readonly waiting: Array<(name: string | undefined) => void> = [];
  private shutDown = false;

  constructor(private readonly options: QueueOptions = DEFAULT_QUEUE_OPTIONS) {}

  get length(): number {
    return this.queue.length - this.head;
  }

  add(name: string): void {
    if (this.shutDown || this.dirty.has(name)) return;
    this.dirty.add(name);
    if (this.processing.has(name)) return;
    const worker = this.waiting.shift();
    if (worker) {
      this.dirty.delete(name);
      this.processing.add(name);
      worker(name);
    } else {
      this.queue.push(name);
    }
  }

  /** Adds `name` after `ms`; an earlier pending schedule for it wins. */
  addAfter(name: string, ms: number): void {
    if (this.shutDown) return;
    if (ms <= 0) {
      this.add(name);
      return;
    }
    const due = Date.now() + ms;
    const existing = this.timers.get(name);
    if (existing && existing.due <= due) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(name);
      this.add(name);
    }, ms);
    timer.unref();
    this.timers.set(name, { timer, due });
  }

  /** Schedules a retry after a failure; returns the delay chosen. */
  addRateLimited(name: string): number {
    const failures = this.failures.get(name) ?? 0;
    this.failures.set(name, failures + 1);
    const delay = backoffDelay(failures, this.options);
    this.addAfter(name, delay);
    return delay;
  }

  /** Clears the failure count of `name` (it was reconciled successfully). */
  forget(name: string): void {
    this.failures.delete(name);
  }

  /** The next name to work on, held until `done`; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    if (this.shutDown) return Promise.resolve(undefined);
    if (this.length > 0) {
      const name = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.dirty.delete(name);
      this.processing.add(name);
      return Promise.resolve(name);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  done(name: string): void {
    this.processing.delete(name);
    if (this.dirty.has(name)) {
      this.dirty.delete(name);
      this.add(name);
    }
  }

  shutdown(): void {
    this.shutDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const worker of this.waiting.splice(0)) worker(undefined);
  }
}
