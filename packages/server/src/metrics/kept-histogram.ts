import { Histogram, type MetricType, type Registry } from 'prom-client';
import type { DurationHistogram } from '../util/duration-histogram.js';

/** One labelled series of a kept histogram. */
export interface KeptSeries {
  labels: Record<string, string>;
  histogram: DurationHistogram;
}

export interface KeptHistogramOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  /** The bounds every series' DurationHistogram was made with. */
  buckets: readonly number[];
  /** The series, read at each scrape. */
  read: () => Iterable<KeptSeries>;
}

/**
 * A Prometheus histogram whose counts are kept where they happen (util/duration-histogram.ts) and read at scrape
 * time, as every other family here is: prom-client writes its text (TYPE line, `_bucket` lines with `le`, `_sum`,
 * `_count`), without its cost per observation. It overrides the two reads prom-client's registry makes of a metric
 * (`getForPromString` for the text, `get` for JSON).
 */
export class KeptHistogram extends Histogram<string> {
  private readonly options: KeptHistogramOptions;

  constructor(options: KeptHistogramOptions, register: Registry) {
    super({
      name: options.name,
      help: options.help,
      labelNames: [...options.labelNames],
      buckets: [...options.buckets],
      registers: [register],
    });
    this.options = options;
  }

  override async get() {
    const { name, help } = this.options;
    // prom-client's types declare the metric type as a numeric enum; its registry reads the string it really sets.
    const type = 'histogram' as unknown as MetricType;
    return { name, help, type, aggregator: 'sum' as const, collect: () => undefined, values: this.values() };
  }

  getForPromString() {
    return this.get();
  }

  private values(): Array<{ metricName: string; labels: Record<string, string | number>; value: number }> {
    const { name, buckets, read } = this.options;
    const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
    for (const { labels, histogram } of read()) {
      if (histogram.count === 0) continue;
      const cumulative = histogram.cumulative();
      buckets.forEach((le, i) => {
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative[i]! });
      });
      values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: histogram.count });
      values.push({ metricName: `${name}_sum`, labels, value: histogram.sum });
      values.push({ metricName: `${name}_count`, labels, value: histogram.count });
    }
    return values;
  }
}
