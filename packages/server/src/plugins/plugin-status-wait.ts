import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { type PluginObject, readPluginObject } from './plugin-object.js';

/** The state a wait ended on: `settled` when the test accepted it, false at the time limit or a deletion. */
export interface WaitOutcome {
  object: PluginObject;
  settled: boolean;
}

/**
 * Follows one Plugin object through the object service's commit events (this server's writes, and other replicas'
 * as the change feed applies them), so a caller can wait for what its status reports. Made before the caller's own
 * write, so nothing committed after that write can be missed.
 */
export class PluginFollower {
  private readonly seen: Array<PluginObject | undefined> = [];
  private wake: (() => void) | undefined;
  private readonly unsubscribe: () => void;

  constructor(objects: ObjectService, served: ServedModel, name: string) {
    this.unsubscribe = objects.onCommitted((change) => {
      if (change.served !== served || change.object.metadata.name !== name) return;
      this.seen.push(change.type === 'DELETED' ? undefined : readPluginObject(change.object));
      this.wake?.();
    });
  }

  /**
   * The first state from `start` on (`start` itself, then each later commit, in order) that `test` accepts. Gives up
   * after `limitMs`, or when the object is deleted, answering the latest state known.
   */
  async until(start: PluginObject, test: (object: PluginObject) => boolean, limitMs: number): Promise<WaitOutcome> {
    if (test(start)) return { object: start, settled: true };
    const from = revisionOf(start);
    let latest = start;
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        expired = true;
        resolve();
      }, limitMs);
    });
    try {
      for (let next = 0; !expired; ) {
        while (next < this.seen.length) {
          const object = this.seen[next++];
          if (!object) return { object: latest, settled: false };
          if (revisionOf(object) <= from) continue;
          latest = object;
          if (test(object)) return { object, settled: true };
        }
        await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), deadline]);
      }
      return { object: latest, settled: false };
    } finally {
      clearTimeout(timer);
      this.wake = undefined;
    }
  }

  close(): void {
    this.unsubscribe();
  }
}

function revisionOf(object: PluginObject): number {
  return Number(object.metadata.resourceVersion ?? 0);
}
