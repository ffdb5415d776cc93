/**
 * Runs tasks one at a time per key, in arrival order. The object service serializes the writes of one object with it,
 * so a unique-index check and the store write it guards cannot interleave with another write of the same object.
 *
 * A task for an idle key starts at once (in the caller's turn) rather than a microtask later: every create meets an
 * idle key, and the hop cost a promise and a turn of the microtask queue per write.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** True when no task is queued or running under any key. */
  get idle(): boolean {
    return this.tails.size === 0;
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    const result = previous ? previous.then(task, task) : start(task);
    const settled = (): void => {
      // Forget the key once its queue drains, so the map does not grow with every object ever written.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    const tail: Promise<void> = result.then(settled, settled);
    this.tails.set(key, tail);
    return result;
  }
}

/** The task's promise; a task that throws before returning one is a rejected promise too. */
function start<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task();
  } catch (error) {
    return Promise.reject(error);
  }
}
