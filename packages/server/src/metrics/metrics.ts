/**
 * `/metrics` in Prometheus' text format (prom-client). Controller figures use controller-runtime's names, so a
 * Kubernetes operator's dashboards and alerts read them unchanged. Everything here is read when scraped, from counts
 * the parts already keep: a request or a reconcile pays nothing for it.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ControllerManager } from '../controllers/controller-manager.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { WatchService } from '../watch/watch-service.js';

export interface MetricSources {
  controllers: ControllerManager;
  registry: ModelRegistry;
  watches: WatchService;
  /** Whether this server holds the controllers' lease (always, alone on SQLite). */
  leads: () => boolean;
}

export interface Metrics {
  readonly contentType: string;
  text(): Promise<string>;
}

export function createMetrics(sources: MetricSources): Metrics {
  const register = new Registry();
  // Process and runtime: CPU, memory, event-loop delay, garbage collection.
  collectDefaultMetrics({ register });
  const runners = () =>
    sources.controllers.runners().map(({ owner, runner }) => ({ controller: runner.spec.name, owner, runner }));

  new Gauge({
    name: 'workqueue_depth',
    help: 'Names waiting in a reconciler queue for a worker',
    labelNames: ['name', 'owner'],
    registers: [register],
    collect() {
      this.reset();
      for (const { controller, owner, runner } of runners()) this.set({ name: controller, owner }, runner.depth);
    },
  });
  new Gauge({
    name: 'controller_runtime_active_workers',
    help: 'Workers inside a reconcile now',
    labelNames: ['controller', 'owner'],
    registers: [register],
    collect() {
      this.reset();
      for (const { controller, owner, runner } of runners()) this.set({ controller, owner }, runner.activeWorkers);
    },
  });
  new Gauge({
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Workers a reconciler runs',
    labelNames: ['controller', 'owner'],
    registers: [register],
    collect() {
      this.reset();
      for (const { controller, owner, runner } of runners())
        this.set({ controller, owner }, Math.max(1, runner.spec.workers));
    },
  });
  new Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Reconciles finished, by result (success, requeue_after, error)',
    labelNames: ['controller', 'owner', 'result'],
    registers: [register],
    collect() {
      this.reset();
      for (const { controller, owner, runner } of runners()) {
        const { succeeded, requeued, failed } = runner.counts;
        this.inc({ controller, owner, result: 'success' }, succeeded);
        this.inc({ controller, owner, result: 'requeue_after' }, requeued);
        this.inc({ controller, owner, result: 'error' }, failed);
      }
    },
  });
  new Counter({
    name: 'controller_runtime_reconcile_time_seconds_total',
    help: 'Seconds spent reconciling, all workers summed',
    labelNames: ['controller', 'owner'],
    registers: [register],
    collect() {
      this.reset();
      for (const { controller, owner, runner } of runners()) this.inc({ controller, owner }, runner.counts.seconds);
    },
  });
  new Gauge({
    name: 'svc_leader',
    help: '1 when this server runs the controllers (holds the lease), else 0',
    registers: [register],
    collect() {
      this.set(sources.leads() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'apiserver_storage_objects',
    help: 'Objects stored, by resource (plural.group, as Kubernetes names it)',
    labelNames: ['resource'],
    registers: [register],
    collect() {
      this.reset();
      for (const { model, index } of sources.registry.all())
        this.set({ resource: model.group ? `${model.plural}.${model.group}` : model.plural }, index.size);
    },
  });
  new Gauge({
    name: 'svc_watchers',
    help: 'Watches open now',
    registers: [register],
    collect() {
      this.set(sources.watches.stats().watchers);
    },
  });
  return { contentType: register.contentType, text: () => register.metrics() };
}
