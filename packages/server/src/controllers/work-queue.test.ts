import { describe, expect, it } from 'vitest';
import { backoffDelay, WorkQueue } from './work-queue.js';

describe('work queue', () => {
  it.each([
    [0, 10],
    [1, 20],
    [2, 40],
    [5, 320],
    [20, 1000],
    [5000, 1000],
  ])('waits %i failures → %i ms (base 10, cap 1000)', (failures, delay) => {
    expect(backoffDelay(failures, { baseDelayMs: 10, maxDelayMs: 1000 })).toBe(delay);
  });

  it('holds a name once however often it is added', async () => {
    const queue = new WorkQueue();
    for (const name of ['a', 'b', 'a', 'a', 'b']) queue.add(name);
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(queue.length).toBe(0);
  });

  it('queues a name added while a worker holds it again only when that worker is done', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const held = await queue.get();
    queue.add('a');
    queue.add('a');
    expect(queue.length).toBe(0);
    queue.done(held!);
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe('a');
  });

  it('hands a name to a waiting worker, and ends waiting workers at shutdown', async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.add('x');
    expect(await waiting).toBe('x');
    const idle = queue.get();
    queue.shutdown();
    expect(await idle).toBeUndefined();
  });

  it('grows the retry delay per failure and resets it on forget', () => {
    const queue = new WorkQueue({ baseDelayMs: 5, maxDelayMs: 15 });
    expect([1, 2, 3, 4].map(() => queue.addRateLimited('a'))).toEqual([5, 10, 15, 15]);
    queue.forget('a');
    expect(queue.addRateLimited('a')).toBe(5);
    queue.shutdown();
  });
});
