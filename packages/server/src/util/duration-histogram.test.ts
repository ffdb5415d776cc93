import { describe, expect, it } from 'vitest';
import { DurationHistogram } from './duration-histogram.js';

const BOUNDS = [0.005, 0.025, 0.1];

const cases: Array<{ name: string; observed: number[]; cumulative: number[]; count: number; sum: number }> = [
  { name: 'nothing observed', observed: [], cumulative: [0, 0, 0], count: 0, sum: 0 },
  {
    name: 'a value on a bound counts in that bucket (le)',
    observed: [0.005],
    cumulative: [1, 1, 1],
    count: 1,
    sum: 0.005,
  },
  { name: 'just above a bound counts in the next', observed: [0.0051], cumulative: [0, 1, 1], count: 1, sum: 0.0051 },
  { name: 'zero is in the first bucket', observed: [0], cumulative: [1, 1, 1], count: 1, sum: 0 },
  { name: 'above every bound: only in +Inf (the count)', observed: [3], cumulative: [0, 0, 0], count: 1, sum: 3 },
  {
    name: 'several, buckets cumulative',
    observed: [0.001, 0.002, 0.02, 0.05, 0.5],
    cumulative: [2, 3, 4],
    count: 5,
    sum: 0.573,
  },
];

describe('DurationHistogram', () => {
  it.each(cases)('$name', ({ observed, cumulative, count, sum }) => {
    const histogram = new DurationHistogram(BOUNDS);
    for (const seconds of observed) histogram.observe(seconds);
    expect(histogram.cumulative()).toEqual(cumulative);
    expect(histogram.count).toBe(count);
    expect(histogram.sum).toBeCloseTo(sum, 9);
  });
});
