import type { FastifyReply, FastifyRequest } from 'fastify';
import { mediaTypeOf } from '../api/apply-body.js';
import { classifyRequest } from '../authz/request-info.js';
import { DurationHistogram } from '../util/duration-histogram.js';
import {
  type KnownTargets,
  namesKnownResource,
  nonResourcePath,
  type RequestLabels,
  requestVerb,
  UNKNOWN_TARGET,
} from './request-labels.js';

/** Kubernetes' buckets of `apiserver_request_duration_seconds`, so its dashboards' quantiles read the same. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

export interface RequestSeries {
  readonly labels: RequestLabels;
  /** Requests counted, by status code. */
  readonly codes: Map<number, number>;
  /** How long they took; none for `WATCH`, whose length is the client's choice and would drown every quantile. */
  readonly durations: DurationHistogram | undefined;
}

type Level<T> = Map<string, T>;
/** verb → group → version → resource → subresource → series: a lookup builds no key. */
type SeriesTable = Level<Level<Level<Level<Level<RequestSeries>>>>>;

/**
 * Counts and times every request by the labels of request-labels.ts, for `/metrics` to read at scrape time. A request
 * pays a few map lookups and additions: its classification is the gate's (kept on the request), and its series is
 * found by its own label strings in nested maps. A long-running answer (a watch, the console's events) is counted as
 * it starts and not timed, as Kubernetes counts its watches; its end is not counted again.
 */
export class RequestMetrics {
  private readonly table: SeriesTable = new Map();
  private readonly all: RequestSeries[] = [];
  private readonly started = new WeakSet<FastifyRequest>();

  constructor(private readonly known: KnownTargets) {}

  /** Fastify's `onResponse` hook: the answer has been sent. */
  readonly answered = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (!this.started.has(request)) {
      const series = this.seriesOf(request);
      count(series, reply.statusCode);
      series.durations?.observe(reply.elapsedTime / 1000);
    }
    done();
  };

  /** A long-running answer has started (api/long-running.ts), with this status. */
  readonly streamStarted = (request: FastifyRequest, status: number): void => {
    this.started.add(request);
    count(this.seriesOf(request), status);
  };

  /** Every series counted so far. */
  series(): readonly RequestSeries[] {
    return this.all;
  }

  private seriesOf(request: FastifyRequest): RequestSeries {
    const { method, target } = request;
    // A request answered before the gate classified it (a refused Host, a failed sign-in) is classified here.
    const info =
      request.requestInfo ??
      classifyRequest({ method, target, isWebSocket: request.headers.upgrade?.toLowerCase() === 'websocket' });
    const verb = requestVerb(info, method, () => mediaTypeOf(request));
    const routed = method === 'HEAD' ? 'GET' : method;
    const routePattern = () => this.known.routePattern(routed, target.routePath);
    if (!info.isResourceRequest) {
      return this.seriesFor(verb, '', '', '', nonResourcePath(routePattern(), request.routeOptions.url));
    }
    const { apiGroup, apiVersion, resource, subresource } = info;
    const seen = this.table.get(verb)?.get(apiGroup)?.get(apiVersion)?.get(resource)?.get(subresource);
    if (seen !== undefined) return seen;
    // First time for these names (or never known: checked each time, and never kept).
    return namesKnownResource(info, routePattern, this.known)
      ? this.seriesFor(verb, apiGroup, apiVersion, resource, subresource)
      : this.seriesFor(verb, '', '', '', UNKNOWN_TARGET);
  }

  private seriesFor(verb: string, group: string, version: string, resource: string, subresource: string) {
    const bySubresource = entry(entry(entry(entry(this.table, verb), group), version), resource);
    let series = bySubresource.get(subresource);
    if (series === undefined) {
      const labels = { verb, group, version, resource, subresource };
      const durations = verb === 'WATCH' ? undefined : new DurationHistogram(REQUEST_DURATION_BUCKETS);
      series = { labels, codes: new Map(), durations };
      bySubresource.set(subresource, series);
      this.all.push(series);
    }
    return series;
  }
}

function entry<T>(level: Level<Level<T>>, key: string): Level<T> {
  let next = level.get(key);
  if (next === undefined) level.set(key, (next = new Map()));
  return next;
}

function count(series: RequestSeries, code: number): void {
  series.codes.set(code, (series.codes.get(code) ?? 0) + 1);
}
