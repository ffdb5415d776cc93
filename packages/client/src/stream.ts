import { problemOf, SvcApiError } from './errors.js';
import type { RequestOptions, Transport } from './http.js';
import type { WatchStatus } from './types.js';
import { lines } from './watch.js';

/**
 * A stream of newline-delimited JSON events from a custom route (such as the console's `users/-/console-events`),
 * read as a watch is: iterate it with `for await`; an `ERROR` event (a Status) is thrown as SvcApiError; it ends when
 * the server ends it or `close()` is called.
 */
export class EventStream<T extends { type: string }> implements AsyncIterable<T> {
  private readonly abort = new AbortController();
  private started = false;

  constructor(
    private readonly transport: Transport,
    private readonly path: string,
    private readonly options: Omit<RequestOptions, 'signal'> & { signal?: AbortSignal } = {},
  ) {
    options.signal?.addEventListener('abort', () => this.close(), { once: true });
  }

  close(): void {
    this.abort.abort();
  }

  get closed(): boolean {
    return this.abort.signal.aborted;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.started) throw new Error('an event stream is iterated once; open another');
    this.started = true;
    if (this.closed) return;
    try {
      const response = await this.transport.send('GET', this.path, { ...this.options, signal: this.abort.signal });
      if (!response.body) return;
      for await (const line of lines(response.body)) {
        const event = JSON.parse(line) as T | { type: 'ERROR'; object: WatchStatus };
        if (event.type === 'ERROR') {
          const status = (event as { object: WatchStatus }).object;
          throw new SvcApiError(
            problemOf(status.code, status.reason, { title: status.reason, detail: status.message }),
          );
        }
        yield event as T;
      }
    } catch (error) {
      if (this.closed) return;
      throw error;
    } finally {
      this.abort.abort();
    }
  }
}
