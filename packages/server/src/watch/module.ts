import { defineModule, ref } from '../kernel/module.js';
import { loggerRef, optionsRef, settingsRef } from '../kernel/root.js';
import { registryRef } from '../registry/module.js';
import { storeRef } from '../store/module.js';
import { PerKeyLimit } from '../util/per-key-limit.js';
import { statusObject } from './events.js';
import { type Retention, startHistoryRetention } from './history-retention.js';
import { WatchHub } from './hub.js';
import { DEFAULT_WATCH_LIMITS, WatchService } from './watch-service.js';
import type { WatcherLimits } from './watcher.js';

export interface WatchOptions {
  /** Watch limits (backlog per watcher, bookmark period, …); defaults in DEFAULT_WATCH_LIMITS. */
  watch?: Partial<WatcherLimits>;
  /** How often the change history is compacted to `SVC_WATCH_HISTORY` events (default 10 s). */
  compactionIntervalMs?: number;
}

export interface WatchServices {
  hub: WatchHub;
  watches: WatchService;
  /** Open streams per caller, for watches and the console's event streams alike. */
  streams: PerKeyLimit;
  retention: Retention;
}

export const watchRef = ref<WatchServices>('watch');

/**
 * The hub every committed write reaches, the watches it feeds, and the history they resume from (compacted where the
 * lease is held). Open watches end first at a stop: they would keep the listeners from closing.
 */
export const watchModule = defineModule({
  name: 'watch',
  phase: 'open',
  needs: {
    store: storeRef,
    registry: registryRef,
    settings: settingsRef,
    logger: loggerRef,
    options: optionsRef<WatchOptions>(),
  },
  provides: watchRef,
  async start(
    { store: { store, lease, fenced }, registry: { registry, objects, feed }, settings, logger, options },
    lifecycle,
  ) {
    const hub = await WatchHub.open(store, objects, registry, (error) =>
      logger.error({ err: error }, 'a watch subscriber failed'),
    );
    lifecycle.onStop('services', () => hub.close());
    feed?.onCaughtUp((revision) => hub.advance(revision));
    const streams = new PerKeyLimit(settings.maxWatchesPerUser);
    const watches = new WatchService(
      store,
      hub,
      { ...DEFAULT_WATCH_LIMITS, ...options.watch },
      (error) => logger.error({ err: error }, 'a watch failed'),
      streams,
    );
    // This replica fell behind the compacted history and lists the store again: its watches missed events, so they
    // end with a 410 (their clients list again, here once ready or on another replica), and publishing goes on after.
    feed?.onRelist((revision) => {
      hub.restartAt(revision);
      watches.failAll(
        statusObject(410, 'Expired', 'this server fell behind the history and lists it again; list again and watch'),
      );
    });
    // A model that goes away ends its watches (a client re-lists and gets the 404).
    registry.onChange((event, served) => event === 'unregistered' && watches.endAll(served.model.resource));
    lifecycle.onStop('streams', () => watches.finishAll());
    const retention = startHistoryRetention(
      // The leader's compaction, refused by the store once the lease has moved on (store/fence.ts).
      { compact: (keep) => fenced(() => store.compact(keep)) },
      settings.watchHistory,
      options.compactionIntervalMs ?? 10_000,
      (error) => logger.error({ err: error }, 'compacting the change history failed'),
      () => lease.held,
    );
    lifecycle.onStop('streams', () => retention.stop());
    return { hub, watches, streams, retention };
  },
});
