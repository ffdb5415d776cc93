import { SvcApiError } from './errors.js';
import type { ResourceClient } from './resource.js';
import type { AnyExtensionObject, WatchEvent } from './types.js';
import type { Watch } from './watch.js';

export type ChangeEvent<T> = Exclude<WatchEvent<T>, { type: 'BOOKMARK' }>;

export interface ChangeFeedOptions<T> {
  /** Follow changes after this revision: a list's `metadata.resourceVersion`. */
  resourceVersion: string;
  labelSelector?: string | string[];
  fieldSelector?: string | string[];
  /** Each change after the revision, in order, once. */
  change(event: ChangeEvent<T>): void;
  /**
   * The revision fell out of the server's history (410 Gone), or the feed could not resume after a failure it cannot
   * retry (400, 401, 403, 404): the feed has stopped; list again and follow from the new list's revision.
   */
  ended?(error: SvcApiError): void;
  /** A watch failed and will be resumed from the last revision seen (network errors, 5xx). */
  error?(error: unknown): void;
  /** First delay before resuming after a failure; it doubles up to 30 s and resets once events flow. */
  retryDelayMs?: number;
}

const MAX_RETRY_MS = 30_000;

/**
 * The changes to a model's objects after a revision, without listing them: for a view that shows one page of a large
 * collection and applies what changes. Each watch resumes from the last revision seen (bookmarks included), so a
 * watch the server ends, or a dropped connection, loses no event and repeats none.
 */
export class ChangeFeed<T extends AnyExtensionObject> {
  private revision: string;
  private running: Promise<void> | undefined;
  private stopped = false;
  private watch: Watch<T> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly resource: ResourceClient<T>,
    private readonly options: ChangeFeedOptions<T>,
  ) {
    this.revision = options.resourceVersion;
  }

  /** The revision up to which every change has been handed out. */
  get resourceVersion(): string {
    return this.revision;
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.close();
    this.wake?.();
    await this.running;
  }

  private async run(): Promise<void> {
    let delay = this.options.retryDelayMs ?? 1000;
    while (!this.stopped) {
      try {
        const watch = (this.watch = this.resource.watch({
          resourceVersion: this.revision,
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
          allowWatchBookmarks: true,
        }));
        for await (const event of watch) {
          if (this.stopped) break;
          if (event.type !== 'BOOKMARK') this.options.change(event);
          if (watch.resourceVersion) this.revision = watch.resourceVersion;
          delay = this.options.retryDelayMs ?? 1000;
        }
      } catch (error) {
        if (this.stopped) break;
        if (error instanceof SvcApiError && [400, 401, 403, 404, 410].includes(error.status)) {
          this.stopped = true;
          this.options.ended?.(error);
          break;
        }
        this.options.error?.(error);
        await this.sleep(delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      }
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
