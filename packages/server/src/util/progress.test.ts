import { describe, expect, it } from 'vitest';
import { Progress, type ProgressPoint } from './progress.js';

/** Each step: the fake clock's time when `count` items are added. */
type Step = { at: number; count: number };

const cases: Array<{ name: string; steps: Step[]; lines: ProgressPoint[]; finish: { at: number; long: boolean } }> = [
  {
    name: 'work shorter than an interval reports nothing along the way',
    steps: [
      { at: 10, count: 500 },
      { at: 900, count: 500 },
    ],
    lines: [],
    finish: { at: 950, long: false },
  },
  {
    name: 'a line once a full interval has passed since the start',
    steps: [
      { at: 999, count: 1 },
      { at: 1000, count: 1 },
    ],
    lines: [{ done: 2, elapsedMs: 1000 }],
    finish: { at: 1000, long: true },
  },
  {
    name: 'many items within one interval give one line, not one per item',
    steps: [
      { at: 1000, count: 1 },
      { at: 1001, count: 1 },
      { at: 1500, count: 1 },
      { at: 1999, count: 1 },
      { at: 2000, count: 1 },
    ],
    lines: [
      { done: 1, elapsedMs: 1000 },
      { done: 5, elapsedMs: 2000 },
    ],
    finish: { at: 2100, long: true },
  },
  {
    name: 'the interval counts from the last line, not from fixed ticks',
    steps: [
      { at: 1300, count: 256 },
      { at: 2200, count: 256 },
      { at: 2300, count: 256 },
      { at: 5000, count: 256 },
    ],
    lines: [
      { done: 256, elapsedMs: 1300 },
      { done: 768, elapsedMs: 2300 },
      { done: 1024, elapsedMs: 5000 },
    ],
    finish: { at: 5000, long: true },
  },
  {
    name: 'no items at all',
    steps: [],
    lines: [],
    finish: { at: 3000, long: true },
  },
];

describe('Progress', () => {
  it.each(cases)('$name', ({ steps, lines, finish }) => {
    let now = 0;
    const seen: ProgressPoint[] = [];
    const progress = new Progress((point) => seen.push(point), { now: () => now });
    for (const step of steps) {
      now = step.at;
      progress.add(step.count);
    }
    expect(seen).toEqual(lines);
    now = finish.at;
    const done = steps.reduce((sum, step) => sum + step.count, 0);
    expect(progress.finish()).toEqual({ done, elapsedMs: finish.at, long: finish.long });
  });

  it('takes another interval when asked', () => {
    let now = 0;
    const seen: ProgressPoint[] = [];
    const progress = new Progress((point) => seen.push(point), { now: () => now, intervalMs: 100 });
    for (now = 50; now <= 250; now += 50) progress.add();
    expect(seen).toEqual([
      { done: 2, elapsedMs: 100 },
      { done: 4, elapsedMs: 200 },
    ]);
  });
});
