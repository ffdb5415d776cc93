/**
 * How a watch catches up before going live, in one of two ways:
 * - `replayHistory`: after a revision, from the store's change history (the replaced value of each MODIFIED change
 *   tells whether the object moved in or out of the selection);
 * - `sendSnapshot`: the current matching objects as ADDED, as of the latest announced revision.
 * Both run while the watcher already buffers live changes, and return the revision they covered.
 */
import { decodeObject } from '../registry/codec.js';
import { type Change, CompactedError, type Store } from '../store/types.js';
import { atRevision, encodeEvent, expiredStatus } from './events.js';
import type { WatchHub } from './hub.js';
import type { LiveChange } from './live-change.js';
import type { Selection } from './selection.js';
import { transition } from './transitions.js';
import type { Watcher } from './watcher.js';

const HISTORY_PAGE = 1000;
const SNAPSHOT_BATCH = 500;

export interface CatchUpDeps {
  store: Store;
  hub: WatchHub;
}

/** Replays every change of the watcher's resource after `after`; undefined when the history no longer reaches it. */
export async function replayHistory(watcher: Watcher, deps: CatchUpDeps, after: number): Promise<number | undefined> {
  const resource = watcher.served.model.resource;
  for (;;) {
    let changes: Change[];
    try {
      changes = await deps.store.changesSince(after, HISTORY_PAGE);
    } catch (error) {
      if (!(error instanceof CompactedError)) throw error;
      watcher.fail(expiredStatus(error.requested, error.oldest));
      return undefined;
    }
    for (const change of changes) {
      if (watcher.isEnded) return undefined;
      if (change.resource === resource) {
        const event = replayedEvent(change, watcher.selection);
        if (event) await watcher.emit(event);
      }
      after = change.revision;
    }
    if (changes.length < HISTORY_PAGE) return after;
    // The live buffer already holds everything from its first revision on.
    const firstLive = watcher.buffered[0]?.revision;
    if (firstLive !== undefined && after >= firstLive - 1) return after;
  }
}

/** The event a watcher sees for a change read from history, or undefined. */
export function replayedEvent(change: Change, selection: Selection): Buffer | undefined {
  if (selection.all) {
    if (change.type !== 'DELETED') return encodeEvent(change.type, change.value);
    return encodeEvent('DELETED', atRevision(decodeObject(change.value), change.revision));
  }
  const next = change.type === 'DELETED' ? undefined : decodeObject(change.value);
  const prevBytes =
    change.type === 'MODIFIED' ? change.prevValue : change.type === 'DELETED' ? change.value : undefined;
  const prev = prevBytes ? decodeObject(prevBytes) : undefined;
  const isIn = next !== undefined && selection.matches(next);
  // History written before the replaced value was kept: take the selection as unchanged.
  const wasIn = prev !== undefined ? selection.matches(prev) : change.type === 'MODIFIED' && isIn;
  const type = transition(change.type, wasIn, isIn);
  if (type === undefined) return undefined;
  if (type !== 'DELETED') return encodeEvent(type, change.value);
  return encodeEvent('DELETED', atRevision(prev ?? next!, change.revision));
}

/**
 * Sends the objects matching the selection as of the hub's latest revision R, as ADDED. The index gives the
 * candidates; an object written after R is sent in its state at R, which is the replaced value of its first buffered
 * change (the store is read only after those changes have been announced, so the buffer holds them).
 */
export async function sendSnapshot(watcher: Watcher, deps: CatchUpDeps): Promise<number> {
  const { served, selection } = watcher;
  const resource = served.model.resource;
  // In the same tick as the subscription: R and the candidate names describe one moment.
  const start = deps.hub.lastRevision;
  const names = served.index.query({ labels: selection.labels, fields: selection.fields, sort: [] }).names;
  const firsts = new FirstChanges(start);
  for (let i = 0; i < names.length && !watcher.isEnded; i += SNAPSHOT_BATCH) {
    const batch = names.slice(i, i + SNAPSHOT_BATCH);
    const records = await deps.store.getMany(resource, batch);
    await deps.hub.reached(await deps.store.currentRevision());
    firsts.take(watcher.buffered);
    for (const record of records) {
      const first = firsts.of(record.name);
      if (first) {
        const before = first.before;
        if (before && selection.matches(before))
          await watcher.emit(encodeEvent('ADDED', Buffer.from(JSON.stringify(before))));
      } else if (selection.all || selection.matches(decodeObject(record.value))) {
        await watcher.emit(encodeEvent('ADDED', record.value));
      }
      firsts.sent.add(record.name);
    }
  }
  // Objects that existed at R but had left the index by the time it was read (a write in flight then).
  firsts.take(watcher.buffered);
  for (const [name, first] of firsts.byName) {
    const before = first.before;
    if (!firsts.sent.has(name) && before && selection.matches(before)) {
      await watcher.emit(encodeEvent('ADDED', Buffer.from(JSON.stringify(before))));
    }
  }
  return start;
}

/** The first buffered change per object after the snapshot's revision. */
class FirstChanges {
  readonly byName = new Map<string, LiveChange>();
  readonly sent = new Set<string>();
  private seen = 0;

  constructor(private readonly after: number) {}

  take(buffer: readonly LiveChange[]): void {
    for (; this.seen < buffer.length; this.seen++) {
      const change = buffer[this.seen]!;
      if (change.revision > this.after && !this.byName.has(change.name)) this.byName.set(change.name, change);
    }
  }

  of(name: string): LiveChange | undefined {
    return this.byName.get(name);
  }
}
