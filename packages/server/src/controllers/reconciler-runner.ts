/**
 * Runs one reconciler (level-based, after controller-runtime): a request carries only an object's name; the reconciler
 * reads the current state itself and returns `requeueAfter` or throws. The runner fills its queue from a full sync at
 * start (every object matching the selectors) and from the watch hub (every change inside the selection, or moving
 * out of it), and runs several workers, never two on one name.
 */
import type { Logger } from '@svc/plugin-api';
import type { ServedModel } from '../registry/model-registry.js';
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
}

export class ReconcilerRunner {
  private queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;
  private loops: Promise<void>[] = [];
  private running = false;

  constructor(
    readonly spec: RunnerSpec,
    private readonly hub: WatchHub,
    private readonly logger: Logger,
    private readonly queueOptions?: QueueOptions,
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
    this.unsubscribe = this.hub.subscribe(served.model.resource, (change) => this.queue.add(change.name), selection);
    const { names } = served.index.query({ labels: selection.labels, fields: selection.fields, sort: [] });
    for (const name of names) this.queue.add(name);
    this.loops = Array.from({ length: Math.max(1, this.spec.workers) }, () => this.work());
  }

  /** Stops taking work and waits for the reconciles in progress. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.queue.shutdown();
    await Promise.all(this.loops);
  }

  private async work(): Promise<void> {
    for (;;) {
      const name = await this.queue.get();
      if (name === undefined) return;
      try {
        const result = await this.spec.reconcile({ name });
        this.queue.forget(name);
        if (result?.requeueAfter !== undefined && result.requeueAfter >= 0)
          this.queue.addAfter(name, result.requeueAfter);
      } catch (error) {
        const delay = this.queue.addRateLimited(name);
        // A conflict only means someone wrote first: the retry reads the new state. Anything else is worth a warning.
        const log = (error as { status?: number }).status === 409 ? this.logger.debug : this.logger.warn;
        log(`reconciler ${this.spec.name} failed on "${name}", retrying in ${delay} ms: ${(error as Error).message}`, {
          reconciler: this.spec.name,
          object: name,
        });
      } finally {
        this.queue.done(name);
      }
    }
  }
}
