/**
 * What the HTTP layer calls to serve a watch: check the request (a 400 before anything is streamed), then run a
 * watcher on a sink. Keeps every open watcher, so the server can end them all when it closes.
 */
import { isApiError, tooManyRequests } from '@svc/plugin-api';
import { ANONYMOUS, type Principal } from '../authz/principal.js';
import type { QueryParameters } from '../registry/list-query.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { Store } from '../store/types.js';
import { type PerKeyLimit, tooManyStreamsMessage } from '../util/per-key-limit.js';
import { replayHistory, sendSnapshot } from './catch-up.js';
import { errorEvent, statusObject, statusOfError, type WatchStatus } from './events.js';
import type { WatchHub } from './hub.js';
import { type Selection, selectionOf } from './selection.js';
import type { WatchSink } from './sink.js';
import type { WatchAccess } from './watch-access.js';
import { parseWatchRequest, type WatchRequest } from './watch-request.js';
import { Watcher, type WatcherLimits } from './watcher.js';

export interface PreparedWatch {
  served: ServedModel;
  request: WatchRequest;
  selection: Selection;
}

export const DEFAULT_WATCH_LIMITS: WatcherLimits = {
  maxBufferedBytes: 4 * 1024 * 1024,
  maxPendingChanges: 100_000,
  bookmarkIntervalMs: 60_000,
  closeGraceMs: 5_000,
};

export class WatchService {
  private readonly watchers = new Set<Watcher>();
  /** The largest backlog any watcher has had, ended ones included. */
  private peak = 0;
  private access: WatchAccess | undefined;

  constructor(
    private readonly store: Store,
    readonly hub: WatchHub,
    private readonly limits: WatcherLimits,
    private readonly onError: (error: unknown) => void,
    /** Open streams per caller (shared with the console's event streams); no limit without it. */
    private readonly streams?: PerKeyLimit,
  ) {}

  /**
   * Reserves one of `owner`'s open streams (util/per-key-limit.ts `streamOwner`) for a watch about to start, before
   * anything is streamed, so a refusal is an ordinary 429. The release goes to `start`, which calls it when the watch
   * ends; a caller that does not get as far as `start` calls it itself.
   */
  reserve(owner: string): () => void {
    if (!this.streams) return () => undefined;
    const release = this.streams.take(owner);
    if (release) return release;
    throw tooManyRequests(tooManyStreamsMessage(owner, this.streams.max), 5);
  }

  /** Parses and checks a watch's query parameters against the model; throws the ApiError a client should get. */
  prepare(served: ServedModel, query: QueryParameters): PreparedWatch {
    const request = parseWatchRequest(query);
    return { served, request, selection: selectionOf(served.index, request.labels, request.fields) };
  }

  /** From now on, every watch started is tied to its caller and ends when the caller loses access (watch-access.ts). */
  checkAccessWith(access: WatchAccess): void {
    this.access = access;
  }

  /**
   * Starts a watch for `caller` (the principal the gate authorized; anonymous when none is given); `release` (from
   * `reserve`) is called when it ends.
   */
  start(
    { served, request, selection }: PreparedWatch,
    sink: WatchSink,
    caller: Principal = ANONYMOUS,
    release: () => void = () => undefined,
  ): Watcher {
    const watcher = new Watcher(served, selection, sink, this.limits, () => this.hub.lastRevision);
    this.access?.follow(watcher, caller);
    // Refused at once (access changed since the gate): nothing to subscribe to or catch up.
    if (watcher.isEnded) {
      release();
      return watcher;
    }
    this.watchers.add(watcher);
    // Live first: whatever commits while catching up is buffered, then delivered without gap or duplicate.
    const unsubscribe = this.hub.subscribe(served.model.resource, watcher.onLive, selection);
    watcher.onEnd(() => {
      release();
      unsubscribe();
      this.watchers.delete(watcher);
      this.peak = Math.max(this.peak, watcher.peakBuffered);
    });
    const deps = { store: this.store, hub: this.hub };
    const caughtUp =
      request.resourceVersion === undefined
        ? sendSnapshot(watcher, deps)
        : replayHistory(watcher, deps, request.resourceVersion);
    caughtUp.then(
      (revision) => {
        if (revision === undefined) return;
        watcher.goLive(revision, { bookmarks: request.allowWatchBookmarks, timeoutSeconds: request.timeoutSeconds });
      },
      (error: unknown) => {
        this.onError(error);
        const message = 'the watch failed while catching up; resume from the last resourceVersion received';
        watcher.fail(statusObject(500, 'InternalError', message));
      },
    );
    return watcher;
  }

  /** Reports a request that could not start as an ERROR event (for WebSockets, already upgraded), then closes. */
  refuse(sink: WatchSink, error: unknown): void {
    if (!isApiError(error)) this.onError(error);
    const status = isApiError(error)
      ? statusOfError(error)
      : statusObject(500, 'InternalError', 'the watch could not start');
    sink.send(errorEvent(status));
    sink.end();
  }

  /** Ends every watch with `status` (a 410 when this replica lost the history its watches followed). */
  failAll(status: WatchStatus): void {
    for (const watcher of [...this.watchers]) watcher.fail(status);
  }

  /** Ends every watch for a stop: each that asked for bookmarks gets a last one first (Watcher.finish). */
  finishAll(): void {
    for (const watcher of [...this.watchers]) watcher.finish();
  }

  /** Ends the watches of one model (when it is unregistered), or all. */

  endAll(resource?: string): void {
    for (const watcher of [...this.watchers]) {
      if (resource === undefined || watcher.served.model.resource === resource) watcher.end();
    }
  }

  stats(): { watchers: number; peakBufferedBytes: number } {
    let peak = this.peak;
    for (const watcher of this.watchers) peak = Math.max(peak, watcher.peakBuffered);
    return { watchers: this.watchers.size, peakBufferedBytes: peak };
  }
}
