import { describe, expect, it } from 'vitest';
import { Turns } from './turns.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('Turns', () => {
  it('goes on without a turn of the loop while the slice lasts', async () => {
    const turns = new Turns(1000);
    const order: string[] = [];
    setImmediate(() => order.push('immediate'));
    await turns.take();
    order.push('after take');
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['after take', 'immediate']);
  });

  it('lets the loop turn once the slice has run out, then starts a new slice', async () => {
    const turns = new Turns(5);
    busy(10);
    const order: string[] = [];
    setImmediate(() => order.push('immediate'));
    await turns.take();
    order.push('after take');
    expect(order).toEqual(['immediate', 'after take']);
    setImmediate(() => order.push('second immediate'));
    await turns.take();
    order.push('after second take');
    expect(order.slice(2)).toEqual(['after second take']);
  });
});

describe('Turns shared by many loops', () => {
  it('lets the loop turn after each slice, however many loops wait, each loop doing at least one step per turn', async () => {
    // A fake clock: each step of work takes 1 ms. Twenty loops share one Turns with a 5 ms slice.
    let clock = 0;
    const turns = new Turns(5, () => clock);
    const LOOPS = 20;
    let steps = 0;
    let stop = false;
    const loops = Array.from({ length: LOOPS }, async () => {
      while (!stop) {
        clock += 1;
        steps++;
        await turns.take();
      }
    });
    // Steps between two turns of the loop, as another task on it sees them.
    const perTurn: number[] = [];
    let last = 0;
    for (let tick = 0; tick < 20; tick++) {
      await new Promise((resolve) => setImmediate(resolve));
      perTurn.push(steps - last);
      last = steps;
    }
    stop = true;
    await Promise.all(loops);
    // Every loop takes its step once it resumes (20), and the four that stepped while the slice lasted take one more:
    // 24 steps a turn, where loops each starting a slice of their own ran five steps each (100).
    expect(Math.max(...perTurn.slice(1))).toBe(LOOPS + 4);
    expect(Math.min(...perTurn.slice(1))).toBe(LOOPS + 4);
  });
});
