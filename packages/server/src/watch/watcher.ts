/**
 * One watch connection. It subscribes to live changes before catching up (replaying history, or sending the current
 * objects), buffers what arrives meanwhile, and once caught up delivers the buffer and then live changes, skipping any
 * revision already covered: no gap and no duplicate. Live delivery never waits for the consumer; a consumer whose
 * backlog passes the limit is ended with an ERROR event, so a slow client costs bounded memory and never slows writers.
 */
import type { ServedModel } from '../registry/model-registry.js';
import { bookmarkEvent, errorEvent, statusObject, type WatchStatus } from './events.js';
import type { LiveChange } from './live-change.js';
import type { Selection } from './selection.js';
import type { WatchSink } from './sink.js';

export interface WatcherLimits {
  /** A consumer with more bytes than this waiting to be sent is ended. */
  maxBufferedBytes: number;
  /** Live changes buffered while catching up; past this the watch is ended (it can resume from its last revision). */
  maxPendingChanges: number;
  /** Bookmark period for watches that ask for bookmarks. */
  bookmarkIntervalMs: number;
  /** After ending a consumer, how long its backlog may take to flush before the connection is dropped. */
  closeGraceMs: number;
}

export class Watcher {
  /** Live changes that arrived while catching up; undefined once live. */
  private pending: LiveChange[] | undefined = [];
  /** The revision up to which changes have been delivered or skipped. */
  private covered = 0;
  private ended = false;
  private corked = false;
  /** Whether the client asked for bookmarks (`allowWatchBookmarks`): only then does the last one go at a stop. */
  private bookmarks = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly endListeners: Array<() => void> = [];
  /** The largest backlog seen after a send, for diagnostics and tests. */
  peakBuffered = 0;

  constructor(
    readonly served: ServedModel,
    readonly selection: Selection,
    private readonly sink: WatchSink,
    private readonly limits: WatcherLimits,
    private readonly latestRevision: () => number,
  ) {
    sink.onClose(() => this.end());
  }

  get isEnded(): boolean {
    return this.ended;
  }

  get catchingUp(): boolean {
    return this.pending !== undefined;
  }

  /** The buffered live changes so far (read while catching up). */
  get buffered(): readonly LiveChange[] {
    return this.pending ?? [];
  }

  /** The hub's callback. */
  readonly onLive = (change: LiveChange): void => {
    if (this.ended) return;
    if (this.pending) {
      this.pending.push(change);
      if (this.pending.length > this.limits.maxPendingChanges) {
        const message =
          'the watch fell too far behind while catching up; resume from the last resourceVersion received';
        this.fail(statusObject(429, 'TooManyRequests', message));
      }
      return;
    }
    this.deliver(change);
  };

  /** Sends one catch-up event, waiting while the consumer's backlog is large (catching up may wait; live never does). */
  async emit(event: Buffer): Promise<void> {
    if (this.ended) return;
    this.sink.send(event);
    this.notePeak();
    const half = this.limits.maxBufferedBytes / 2;
    if (this.sink.buffered() >= half) await this.sink.drained(half);
  }

  /** Catching up covered every change up to `revision`: deliver the rest of the buffer, then stay live. */
  goLive(revision: number, options: { bookmarks: boolean; timeoutSeconds?: number }): void {
    if (this.ended) return;
    this.covered = Math.max(this.covered, revision);
    const pending = this.pending ?? [];
    this.pending = undefined;
    for (const change of pending) {
      if (this.ended) return;
      this.deliver(change);
    }
    this.bookmarks = options.bookmarks;
    if (options.bookmarks) {
      const model = this.served.model;
      this.every(this.limits.bookmarkIntervalMs, () => {
        this.sink.send(bookmarkEvent(model, Math.max(this.covered, this.latestRevision())));
        this.checkBacklog();
      });
    }
    if (options.timeoutSeconds !== undefined) this.after(options.timeoutSeconds * 1000, () => this.end());
  }

  /** Ends the watch with an ERROR event carrying `status`. */
  fail(status: WatchStatus): void {
    if (this.ended) return;
    this.sink.send(errorEvent(status));
    this.end();
    // A consumer that stopped reading would hold its backlog forever: drop the connection after a grace period.
    if (!this.sink.closed) setTimeout(() => this.sink.destroy(), this.limits.closeGraceMs).unref();
  }

  /**
   * Ends the watch because the server stops: a live watch that asked for bookmarks first gets one carrying the latest
   * revision, so its client (client-go's reflector, client-node's informer, @svc/client) resumes from there on another
   * replica without a re-list; every client reads the end of the stream as "watch again from the last revision".
   */
  finish(): void {
    if (this.ended) return;
    if (this.bookmarks && this.pending === undefined) {
      this.sink.send(bookmarkEvent(this.served.model, Math.max(this.covered, this.latestRevision())));
    }
    this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.pending = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    // Sends held by the cork leave before the end: Node.js 24 breaks a chunked response's framing when it is ended
    // while corked (the client reads a parse error instead of the last events).
    this.uncork();
    this.sink.end();
    for (const listener of this.endListeners) listener();
  }

  onEnd(listener: () => void): void {
    this.endListeners.push(listener);
  }

  private deliver(change: LiveChange): void {
    if (change.revision <= this.covered) return;
    this.covered = change.revision;
    const type = change.typeFor(this.selection);
    if (type === undefined) return;
    if (!this.corked) {
      // The hub publishes a store batch's changes in one go: they leave in one write once it is done.
      this.corked = true;
      this.sink.cork();
      process.nextTick(() => this.uncork());
    }
    if (this.sink.sendFrame) this.sink.sendFrame(change.frame(type));
    else this.sink.send(change.event(type));
    this.checkBacklog();
  }

  private uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    this.sink.uncork();
  }

  private checkBacklog(): void {
    this.notePeak();
    const backlog = this.sink.buffered();
    if (backlog > this.limits.maxBufferedBytes) {
      this.fail(
        statusObject(
          429,
          'TooManyRequests',
          `the watcher could not keep up: ${backlog} bytes were waiting to be sent ` +
            `(the limit is ${this.limits.maxBufferedBytes}); ` +
            'resume from the last resourceVersion received',
        ),
      );
    }
  }

  private notePeak(): void {
    const backlog = this.sink.buffered();
    if (backlog > this.peakBuffered) this.peakBuffered = backlog;
  }

  private every(ms: number, task: () => void): void {
    const timer = setInterval(task, ms);
    timer.unref();
    this.timers.push(timer);
  }

  private after(ms: number, task: () => void): void {
    const timer = setTimeout(task, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
