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
