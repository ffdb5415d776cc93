/**
 * Runs one reconciler (level-based, after controller-runtime): a request carries only an object's name; the reconciler
 * reads the current state itself and returns `requeueAfter` or throws. The runner fills its queue from a full sync at
 * start (every object matching the selectors) and from the watch hub (every change inside the selection, or moving
 * out of it), and runs several workers, never two on one name.
 */
import type { Logger } from '@svc/plugin-api';
import type { ServedModel } from '../registry/model-registry.js';
import { DurationHistogram } from '../util/duration-histogram.js';
import { Turns } from '../util/turns.js';
import type { WatchHub } from '../watch/hub.js';
import type { Selection } from '../watch/selection.js';
import { type QueueOptions, WorkQueue } from './work-queue.js';

export type ReconcileFunction = (request: { name: string }) => Promise<{ requeueAfter?: number } | void>;

export interface RunnerSpec {
  name: string;
  served: ServedModel;
  selection: Selection;
  workers: number;
  reconcile: ReconcileFunction;
  /**
   * Other names a change of this one concerns, queued with it (controller-runtime's EnqueueRequestsFromMapFunc): the
   * plugins waiting for a plugin that changed, say.
   */
  related?: (name: string) => string[];
}

/** What a runner has done since it was made (read by the metrics endpoint). */
export interface RunnerCounts {
  /** Reconciles that returned, by outcome: done, or asked to run again later. */
  succeeded: number;
  requeued: number;
  /** Reconciles that threw (each is retried with backoff). */
  failed: number;
  /** Seconds spent in reconciles, all workers summed. */
  seconds: number;
  /** Each reconcile's seconds, in controller-runtime's buckets (`controller_runtime_reconcile_time_seconds`). */
  times: DurationHistogram;
}

/** controller-runtime's buckets of `controller_runtime_reconcile_time_seconds`, so its dashboards' quantiles agree. */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2,
  2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/**
 * Per name, the newest committed revision when its latest reconcile began. A change no newer than that is one the
 * reconcile has read (it reads the store after it starts), so it need not queue the name again: a late delivery of a
 * reconcile's own writes would otherwise cost a reconcile that finds nothing to do. Entries live one to two seconds,
 * long enough for a delivery in flight, so the map never grows with the number of objects.
 */
class StartRevisions {
  private current = new Map<string, number>();
  private previous = new Map<string, number>();
  private swappedAt = Date.now();

  set(name: string, revision: number): void {
    const now = Date.now();
    if (now - this.swappedAt >= 1000) {
      this.previous = this.current;
      this.current = new Map();
      this.swappedAt = now;
    }
    this.current.set(name, revision);
  }

  get(name: string): number {
    return this.current.get(name) ?? this.previous.get(name) ?? 0;
  }
}

export class ReconcilerRunner {
  private queue: WorkQueue;
  /** A reconcile that writes nothing never waits for I/O: a full pass over a million objects would hold the loop. */
  private readonly turns = new Turns();
  private readonly startRevisions = new StartRevisions();
  /** Workers inside a reconcile right now. */
  private active = 0;
  readonly counts: RunnerCounts = {
    succeeded: 0,
    requeued: 0,
    failed: 0,
    seconds: 0,
    times: new DurationHistogram(RECONCILE_TIME_BUCKETS),
  };
  private unsubscribe: (() => void) | undefined;
  private loops: Promise<void>[] = [];
  private running = false;
  /** Names of the full sync not yet queued (see fill). */
  private unfilled = 0;

  constructor(
    readonly spec: RunnerSpec,
    private readonly hub: WatchHub,
    private readonly logger: Logger,
    private readonly queueOptions?: QueueOptions,
    /** The revision up to which a reconcile starting now reads an object's changes (ObjectService.readRevision). */
    private readonly readRevision: (served: ServedModel, name: string) => number = () => 0,
  ) {
    this.queue = new WorkQueue(queueOptions);
  }

  /** Starts (or starts again after `stop`, with a fresh queue and a full sync). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.queue = new WorkQueue(this.queueOptions);
    const { served, selection } = this.spec;
    // Subscribed before the full sync reads the index, so nothing written in between is missed.
    this.unsubscribe = this.hub.subscribe(
      served.model.resource,
      (change) => {
        if (change.revision > this.startRevisions.get(change.name)) this.queue.add(change.name);
        for (const name of this.spec.related?.(change.name) ?? []) this.queue.add(name);
      },
      selection,
    );
    // In name order: a walk of the name index (without a sort, a query orders by creationTimestamp).
    const sort = [{ field: 'metadata.name', direction: 'asc' as const }];
    const { names } = served.index.query({ labels: selection.labels, fields: selection.fields, sort });
    this.loops = Array.from({ length: Math.max(1, this.spec.workers) }, () => this.work());
    void this.fill(this.queue, names);
  }

  /**
   * Queues the full sync's names a slice per turn of the loop (a million at once held it for 0.4 s); until then they
   * count in the depth, so the queue does not read empty while the first pass is still going.
   */
  private async fill(queue: WorkQueue, names: readonly string[]): Promise<void> {
    this.unfilled = names.length;
    for (let i = 0; i < names.length; i++) {
      if (queue !== this.queue || !this.running) return;
      queue.add(names[i]!);
      this.unfilled--;
      if ((i & 1023) === 1023) await this.turns.take();
    }
  }

  /** Names waiting for a worker (retries and `requeueAfter` only once their time has come). */
  get depth(): number {
    return this.running ? this.queue.length + this.unfilled : 0;
  }

  get activeWorkers(): number {
    return this.active;
  }

  /** Stops taking work and waits for the reconciles in progress. */
  async stop(): Promise<void> {
    this.running = false;
    this.unfilled = 0;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.queue.shutdown();
    await Promise.all(this.loops);
  }

  private async work(): Promise<void> {
    for (;;) {
      await this.turns.take();
      const name = await this.queue.get();
      if (name === undefined) return;
      this.active++;
      this.startRevisions.set(name, this.readRevision(this.spec.served, name));
      const started = performance.now();
      try {
        const result = await this.spec.reconcile({ name });
        this.queue.forget(name);
        if (result?.requeueAfter !== undefined && result.requeueAfter >= 0) {
          this.counts.requeued++;
          this.queue.addAfter(name, result.requeueAfter);
        } else this.counts.succeeded++;
      } catch (error) {
        this.counts.failed++;
        const delay = this.queue.addRateLimited(name);
        // A conflict only means someone wrote first: the retry reads the new state. Anything else is worth a warning.
        const log = (error as { status?: number }).status === 409 ? this.logger.debug : this.logger.warn;
        log(`reconciler ${this.spec.name} failed on "${name}", retrying in ${delay} ms: ${(error as Error).message}`, {
          reconciler: this.spec.name,
          object: name,
        });
      } finally {
        this.active--;
        const seconds = (performance.now() - started) / 1000;
        this.counts.seconds += seconds;
        this.counts.times.observe(seconds);
        this.queue.done(name);
      }
    }
  }
}
