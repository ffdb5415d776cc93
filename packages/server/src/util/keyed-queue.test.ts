import { describe, expect, it } from 'vitest';
import { KeyedQueue } from './keyed-queue.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedQueue', () => {
  it('runs the tasks of one key one at a time, in arrival order, and other keys alongside', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const release: Record<string, () => void> = {};
    const task = (id: string) => () =>
      new Promise<string>((resolve) => {
        log.push(`start ${id}`);
        release[id] = () => {
          log.push(`end ${id}`);
          resolve(id);
        };
      });
    const a1 = queue.run('a', task('a1'));
    const a2 = queue.run('a', task('a2'));
    const b1 = queue.run('b', task('b1'));
    await tick();
    expect(log).toEqual(['start a1', 'start b1']);
    release.a1!();
    await tick();
    expect(log).toEqual(['start a1', 'start b1', 'end a1', 'start a2']);
    release.a2!();
    release.b1!();
    expect(await Promise.all([a1, a2, b1])).toEqual(['a1', 'a2', 'b1']);
  });

  it('starts a task for an idle key in the caller’s turn', () => {
    const queue = new KeyedQueue();
    let started = false;
    void queue.run('k', async () => void (started = true));
    expect(started).toBe(true);
  });

  it('passes on a failure to its caller only, and the next task of the key still runs', async () => {
    const queue = new KeyedQueue();
    const failing = queue.run('k', () => {
      throw new Error('refused'); // before returning a promise
    });
    const rejected = queue.run('k', async () => Promise.reject(new Error('also refused')));
    const next = queue.run('k', async () => 'ran');
    await expect(failing).rejects.toThrow('refused');
    await expect(rejected).rejects.toThrow('also refused');
    expect(await next).toBe('ran');
    // Drained: a new task starts at once again.
    await tick();
    let started = false;
    void queue.run('k', async () => void (started = true));
    expect(started).toBe(true);
  });
});
