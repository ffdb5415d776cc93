import { problemOf, SvcApiError } from './errors.js';
import type { Transport } from './http.js';
import { collectionPath, watchQuery } from './paths.js';
import type { ResourceRef, WatchEvent, WatchOptions, WatchStatus } from './types.js';

/**
 * One watch over HTTP streaming (`GET <collection>?watch=true`: newline-delimited JSON events, docs/api.md "Watch").
 * Iterate it with `for await`; it ends when the server ends the stream (`timeoutSeconds`) or `close()` is called.
 * An ERROR event is thrown as SvcApiError (410 Gone: the revision is too old, list again). `resourceVersion` is the
 * revision of the last event seen, bookmarks included: pass it to the next watch to resume with no gap.
 */
export class Watch<T> implements AsyncIterable<WatchEvent<T>> {
  resourceVersion: string | undefined;
  private readonly abort = new AbortController();
  private started = false;

  constructor(
    private readonly transport: Transport,
    private readonly ref: ResourceRef,
    private readonly options: WatchOptions = {},
  ) {
    this.resourceVersion = options.resourceVersion;
    options.signal?.addEventListener('abort', () => this.close(), { once: true });
  }

  /** Ends the watch; a pending or later iteration finishes without an error. */
  close(): void {
    this.abort.abort();
  }

  get closed(): boolean {
    return this.abort.signal.aborted;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.started) throw new Error('a watch is iterated once; start another from watch.resourceVersion');
    this.started = true;
    if (this.closed) return;
    try {
      const response = await this.transport.send('GET', collectionPath(this.ref), {
        query: watchQuery(this.options),
        signal: this.abort.signal,
      });
      this.options.onOpen?.();
      if (!response.body) return;
      for await (const line of lines(response.body)) {
        const event = JSON.parse(line) as WatchEvent<T> | { type: 'ERROR'; object: WatchStatus };
        if (event.type === 'ERROR') {
          const status = event.object;
          throw new SvcApiError(
            problemOf(status.code, status.reason, { title: status.reason, detail: status.message }),
          );
        }
        const revision = (event.object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
        if (revision) this.resourceVersion = revision;
        yield event;
      }
    } catch (error) {
      // Closing aborts the request or the body being read: the end the caller asked for, not a failure.
      if (this.closed) return;
      throw error;
    } finally {
      this.abort.abort();
    }
  }
}

/** The lines of a byte stream, without their newlines; blank lines skipped. */
export async function* lines(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of body) {
    const { complete, remainder } = splitLines(rest + decoder.decode(chunk, { stream: true }));
    rest = remainder;
    yield* complete;
  }
  const last = (rest + decoder.decode()).trim();
  if (last !== '') yield last;
}

/** Splits text at newlines into the complete lines and what follows the last newline. Pure. */
export function splitLines(text: string): { complete: string[]; remainder: string } {
  const parts = text.split('\n');
  const remainder = parts.pop() ?? '';
  return { complete: parts.map((p) => p.trim()).filter((p) => p !== ''), remainder };
}
