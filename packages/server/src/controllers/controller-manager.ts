/**
 * Every reconciler running in the server, by owner (`core`, or `plugin:<name>`), so that stopping a plugin stops
 * exactly its reconcilers. Turns a plugin's ReconcilerDefinition into a runner: the model resolved, the selectors
 * parsed and checked against the model's indexes.
 */
import type { Logger, ReconcileContext, ReconcilerDefinition } from '@svc/plugin-api';
import { parseFieldSelector, parseLabelSelector } from '../index/selectors.js';
import type { Owner } from '../objects/owner.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { WatchHub } from '../watch/hub.js';
import { selectionOf } from '../watch/selection.js';
import { ReconcilerRunner, type RunnerSpec } from './reconciler-runner.js';
import type { QueueOptions } from './work-queue.js';

export interface ControllerManagerDeps {
  registry: ModelRegistry;
  hub: WatchHub;
  queueOptions?: QueueOptions;
  /** The revision up to which a reconcile starting now reads an object's changes (ObjectService.readRevision). */
  readRevision?: (served: ServedModel, name: string) => number;
  /** Whether this server leads from the start (default true: one server alone always does). */
  leading?: boolean;
  /**
   * Runs a leader's reconcile so that its writes carry the lease's epoch (store/fence.ts): once the lease has moved on,
   * the store refuses them. Not for `everyReplica` runners.
   */
  fenced?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * Reconcilers run on one server at a time (the leader: main.ts follows the store's `controllers` lease), so a
 * reconcile never runs twice at once across replicas; a runner marked `everyReplica` runs on each server, for state
 * that is each server's own (which plugins it runs).
 */
export class ControllerManager {
  private readonly byOwner = new Map<Owner, ReconcilerRunner[]>();
  private readonly onEveryReplica = new Set<ReconcilerRunner>();
  private leading: boolean;

  constructor(private readonly deps: ControllerManagerDeps) {
    this.leading = deps.leading ?? true;
  }

  /** Whether this server leads: runners start when it becomes true, and stop (finishing what runs) when false. */
  async setLeading(leading: boolean): Promise<void> {
    if (leading === this.leading) return;
    this.leading = leading;
    const runners = [...this.byOwner.values()].flat().filter((runner) => !this.onEveryReplica.has(runner));
    if (leading) for (const runner of runners) runner.start();
    else await Promise.all(runners.map((runner) => runner.stop()));
  }

  /** Starts a reconciler of `owner`; throws (400/404) when its model or selectors are wrong. */
  add(owner: Owner, definition: ReconcilerDefinition, context: ReconcileContext): ReconcilerRunner {
    const served = this.deps.registry.resolve(definition.model);
    const selection = selectionOf(
      served.index,
      parseLabelSelector(definition.labelSelector),
      parseFieldSelector(definition.fieldSelector),
    );
    return this.run(
      owner,
      {
        name: definition.name,
        served,
        selection,
        workers: definition.workers ?? 1,
        reconcile: (request) => definition.reconcile(request, context),
      },
      context.logger,
    );
  }

  /** Starts a runner built by core code (on the leader only, unless `everyReplica`). */
  run(owner: Owner, spec: RunnerSpec, logger: Logger, options: { everyReplica?: boolean } = {}): ReconcilerRunner {
    const { hub, queueOptions, readRevision, fenced } = this.deps;
    const reconcile = spec.reconcile;
    const leaderOnly =
      fenced && !options.everyReplica
        ? { ...spec, reconcile: (request: { name: string }) => fenced(() => reconcile(request)) }
        : spec;
    const runner = new ReconcilerRunner(leaderOnly, hub, logger, queueOptions, readRevision);
    const runners = this.byOwner.get(owner) ?? [];
    runners.push(runner);
    this.byOwner.set(owner, runners);
    if (options.everyReplica) this.onEveryReplica.add(runner);
    if (this.leading || options.everyReplica) runner.start();
    return runner;
  }

  /** Stops one runner (for example when its model is unregistered). */
  async remove(owner: Owner, runner: ReconcilerRunner): Promise<void> {
    const runners = this.byOwner.get(owner) ?? [];
    this.byOwner.set(
      owner,
      runners.filter((r) => r !== runner),
    );
    this.onEveryReplica.delete(runner);
    await runner.stop();
  }

  async removeOwner(owner: Owner): Promise<void> {
    const runners = this.byOwner.get(owner) ?? [];
    this.byOwner.delete(owner);
    for (const runner of runners) this.onEveryReplica.delete(runner);
    await Promise.all(runners.map((runner) => runner.stop()));
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.byOwner.keys()].map((owner) => this.removeOwner(owner)));
  }

  /** Every runner with its owner, running or not (a follower's are stopped): what the metrics endpoint reports. */
  runners(): Array<{ owner: Owner; runner: ReconcilerRunner }> {
    return [...this.byOwner].flatMap(([owner, runners]) => runners.map((runner) => ({ owner, runner })));
  }

  /** Names of the running reconcilers of `owner`. */
  names(owner: Owner): string[] {
    return (this.byOwner.get(owner) ?? []).map((runner) => runner.spec.name);
  }
}
