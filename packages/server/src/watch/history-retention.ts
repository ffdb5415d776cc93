/**
 * Keeps the store's change history bounded (`SVC_WATCH_HISTORY` events): a periodic compaction, off the request path.
 * A watch resuming from a revision older than what is kept gets an ERROR 410 and re-lists.
 */
import type { Store } from '../store/types.js';

export interface Retention {
  /** Compacts now (also what the timer does); returns the number of events dropped. */
  compact(): Promise<number>;
  stop(): void;
}

export function startHistoryRetention(
  store: Pick<Store, 'compact'>,
  keep: number,
  intervalMs: number,
  onError: (error: unknown) => void,
  /** Whether this server compacts (the leader of several; always, alone). */
  leads: () => boolean = () => true,
): Retention {
  let running: Promise<number> | undefined;
  const compact = () => {
    // One compaction at a time: a slow one is not stacked up behind by the timer.
    running ??= store.compact(keep).finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => leads() && void compact().catch(onError), intervalMs);
  timer.unref();
  return { compact, stop: () => clearInterval(timer) };
}
