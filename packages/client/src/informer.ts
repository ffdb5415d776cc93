import { SvcApiError } from './errors.js';
import type { ResourceClient } from './resource.js';
import type { AnyExtensionObject } from './types.js';
import type { Watch } from './watch.js';

export interface InformerHandlers<T> {
  add?(object: T): void;
  update?(previous: T, object: T): void;
  delete?(object: T): void;
  /** A list or watch failed and will be retried (a 410 is no error: the informer lists again). */
  error?(error: unknown): void;
  /** A watch is open, after the first list and after each reconnect: the cache follows svc again (after `error`). */
  watching?(): void;
}

export interface InformerOptions<T> extends InformerHandlers<T> {
  labelSelector?: string | string[];
  fieldSelector?: string | string[];
  /** First delay before retrying a failed list or watch; it doubles up to 30 s and resets after a good watch. */
  retryDelayMs?: number;
}

/** Answers that will not change by retrying: the informer stops and `synced` rejects with them. */
const PERMANENT = new Set([400, 401, 403, 404]);
const MAX_RETRY_MS = 30_000;

/**
 * A cache of a model's objects, as client-go's informer: it lists, then watches from the list's revision; when the
 * watch ends it resumes from the last revision seen (bookmarks included); on 410 Gone it lists again and reports
 * the difference as add/update/delete. `synced` resolves once the first list is in the cache.
 */
export class Informer<T extends AnyExtensionObject> {
  readonly synced: Promise<void>;
  private readonly cache = new Map<string, T>();
  private revision: string | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private watch: Watch<T> | undefined;
  private wake: (() => void) | undefined;
  private markSynced!: () => void;
  private failSync!: (error: unknown) => void;
  private isSynced = false;

  constructor(
    private readonly resource: ResourceClient<T>,
    private readonly options: InformerOptions<T> = {},
  ) {
    this.synced = new Promise((resolve, reject) => {
      this.markSynced = resolve;
      this.failSync = reject;
    });
    // A caller that never awaits `synced` must not see an unhandled rejection.
    this.synced.catch(() => undefined);
  }

  /** Starts listing and watching (once); answers `synced`. */
  start(): Promise<void> {
    this.running ??= this.run();
    return this.synced;
  }

  /** Stops watching; the cache keeps what it holds. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.close();
    this.wake?.();
    await this.running;
  }

  /** The cached objects, in name order. */
  list(): T[] {
    return [...this.cache.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  get(name: string): T | undefined {
    return this.cache.get(name);
  }

  /** The revision the cache is at. */
  get resourceVersion(): string | undefined {
    return this.revision;
  }

  private async run(): Promise<void> {
    let delay = this.options.retryDelayMs ?? 1000;
    while (!this.stopped) {
      try {
        if (this.revision === undefined) await this.relist();
        const watch = (this.watch = this.resource.watch({
          resourceVersion: this.revision,
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
          allowWatchBookmarks: true,
          onOpen: () => this.options.watching?.(),
        }));
        for await (const event of watch) {
          if (event.type !== 'BOOKMARK') this.apply(event.type, event.object);
          this.revision = watch.resourceVersion;
          delay = this.options.retryDelayMs ?? 1000;
        }
      } catch (error) {
        if (this.stopped) break;
        if (error instanceof SvcApiError && error.status === 410) {
          this.revision = undefined;
          continue;
        }
        if (!this.isSynced && error instanceof SvcApiError && PERMANENT.has(error.status)) {
          this.stopped = true;
          this.failSync(error);
          break;
        }
        this.options.error?.(error);
        await this.sleep(delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      }
    }
  }

  /** Lists afresh and reports how the cache changed. */
  private async relist(): Promise<void> {
    const listed = await this.resource.list({
      labelSelector: this.options.labelSelector,
      fieldSelector: this.options.fieldSelector,
    });
    const seen = new Set<string>();
    for (const object of listed.items) {
      seen.add(object.metadata.name);
      this.apply('ADDED', object);
    }
    for (const [name, object] of [...this.cache]) {
      if (!seen.has(name)) this.apply('DELETED', object);
    }
    this.revision = listed.metadata.resourceVersion;
    if (!this.isSynced) {
      this.isSynced = true;
      this.markSynced();
    }
  }

  private apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void {
    const name = object.metadata.name;
    const previous = this.cache.get(name);
    if (type === 'DELETED') {
      if (!previous) return;
      this.cache.delete(name);
      this.options.delete?.(object);
      return;
    }
    this.cache.set(name, object);
    if (!previous) this.options.add?.(object);
    else if (previous.metadata.resourceVersion !== object.metadata.resourceVersion) {
      this.options.update?.(previous, object);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
