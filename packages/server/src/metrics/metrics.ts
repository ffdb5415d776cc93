/**
 * `/metrics` in Prometheus' text format (prom-client). Requests and controllers use the Kubernetes API server's and
 * controller-runtime's names, so a Kubernetes operator's dashboards and alerts read them unchanged. Everything here is
 * read when scraped, from counts the parts keep as plain numbers: a request or a reconcile pays a few additions.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ControllerManager } from '../controllers/controller-manager.js';
import { RECONCILE_TIME_BUCKETS } from '../controllers/reconciler-runner.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { WatchService } from '../watch/watch-service.js';
import { KeptHistogram } from './kept-histogram.js';
import { REQUEST_DURATION_BUCKETS, type RequestMetrics } from './request-metrics.js';

export interface MetricSources {
  controllers: ControllerManager;
  registry: ModelRegistry;
  watches: WatchService;
  /** Whether this server holds the controllers' lease (always, alone on SQLite). */
  leads: () => boolean;
  /** What `svc_build_info` names: svc's version and the store's dialect (`sqlite` or `postgres`). */
  build: { version: string; store: string };
  /** Requests counted and timed; unset when request metrics are off (SVC_REQUEST_METRICS). */
  requests?: RequestMetrics;
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
  new KeptHistogram(
    {
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller', 'owner'],
      buckets: RECONCILE_TIME_BUCKETS,
      read: () =>
        runners().map(({ controller, owner, runner }) => ({
          labels: { controller, owner },
          histogram: runner.counts.times,
        })),
    },
    register,
  );
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
  new Gauge({
    name: 'svc_build_info',
    help: "svc's version, the Node.js running it and its store (sqlite or postgres); always 1",
    labelNames: ['version', 'node_version', 'store'],
    registers: [register],
  }).set({ version: sources.build.version, node_version: process.version, store: sources.build.store }, 1);
  if (sources.requests) registerRequestFamilies(register, sources.requests);
  return { contentType: register.contentType, text: () => register.metrics() };
}

/** The Kubernetes API server's request families, read from the recorder (request-metrics.ts). */
function registerRequestFamilies(register: Registry, requests: RequestMetrics): void {
  new Counter({
    name: 'apiserver_request_total',
    help: 'Requests, by verb, group, version, resource, subresource and HTTP status code',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'code'],
    registers: [register],
    collect() {
      this.reset();
      for (const { labels, codes } of requests.series())
        for (const [code, count] of codes) this.inc({ ...labels, code: String(code) }, count);
    },
  });
  new KeptHistogram(
    {
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency in seconds, by verb, group, version, resource and subresource (WATCH is not timed)',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource'],
      buckets: REQUEST_DURATION_BUCKETS,
      read: function* () {
        for (const { labels, durations } of requests.series())
          if (durations) yield { labels: { ...labels }, histogram: durations };
      },
    },
    register,
  );
}
