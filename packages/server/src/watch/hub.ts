/**
 * The watch hub: fed by the object service's commit announcements, it hands each change to the subscribers of that
 * change's resource (watchers and reconcilers), wrapped once in a LiveChange so encodings are shared, strictly in
 * revision order, each revision once. `lastRevision` is the point a new watch without a revision starts from, and
 * what a bookmark carries.
 *
 * Announcements can arrive out of order (writes committed in one batch resume in any order; PostgreSQL replies race
 * on separate connections), and some revisions are never announced (records written to the store directly). So the
 * hub publishes only contiguous revisions: a change after a gap waits until the gap's announcements arrive, or, if
 * they do not arrive at once, until the gap is read from the store's history (published from there, or skipped when
 * the revision belongs to no model).
 */
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { Store } from '../store/types.js';
import { LiveChange } from './live-change.js';
import type { Selection } from './selection.js';

export type LiveListener = (change: LiveChange) => void;

/**
 * The listeners of one resource that share a selection (or have none). A change outside the selection skips the whole
 * group after one test, so a hundred idle watchers with one selector cost a change one test, not a hundred calls.
 */
interface SelectionGroup {
  readonly selection: Selection | undefined;
  readonly listeners: Set<LiveListener>;
}

/** How long a revision missing from the history is waited for before it is taken as never coming. */
const GAP_TIMEOUT_MS = 5000;
const GAP_POLL_MS = 10;

export class WatchHub {
  private readonly byResource = new Map<string, Map<string, SelectionGroup>>();
  private waiters: Array<{ revision: number; resolve: () => void }> = [];
  /** Announced this turn, not yet sorted. */
  private announced: LiveChange[] = [];
  /** Waiting for a gap before them to close, in revision order. */
  private held: LiveChange[] = [];
  private filling = false;
  /** When the history was first found to hold nothing for the gap being filled (see fillGap). */
  private emptySince: { from: number; at: number } | undefined;
  private closed = false;
  private readonly stopListening: () => void;

  private constructor(
    private readonly objects: ObjectService,
    private readonly store: Store,
    private readonly registry: ModelRegistry,
    private published: number,
    private readonly onError: (error: unknown) => void,
    private readonly gapTimeoutMs: number,
  ) {
    this.stopListening = objects.onCommitted((change) => this.collect(new LiveChange(change)));
  }

  static async open(
    store: Store,
    objects: ObjectService,
    registry: ModelRegistry,
    onError: (error: unknown) => void,
    { gapTimeoutMs = GAP_TIMEOUT_MS } = {},
  ) {
    const hub = new WatchHub(objects, store, registry, 0, onError, gapTimeoutMs);
    // Subscribed first: a write committing meanwhile is announced after this revision and published as usual.
    hub.published = await store.currentRevision();
    return hub;
  }

  /** The revision up to which every change has been published. */
  get lastRevision(): number {
    return this.published;
  }

  /**
   * Hands `listener` every change of `resource` from now on; with `selection`, only the changes that concern it (in it
   * before or after: what LiveChange.typeFor does not answer undefined for). Returns the unsubscribe function.
   */
  subscribe(resource: string, listener: LiveListener, selection?: Selection): () => void {
    const key = selection && !selection.all ? selection.key : '';
    const groups = this.byResource.get(resource) ?? new Map<string, SelectionGroup>();
    this.byResource.set(resource, groups);
    const group = groups.get(key) ?? {
      selection: key === '' ? undefined : selection,
      listeners: new Set<LiveListener>(),
    };
    groups.set(key, group);
    group.listeners.add(listener);
    return () => {
      group.listeners.delete(listener);
      if (group.listeners.size === 0 && groups.get(key) === group) groups.delete(key);
      if (groups.size === 0 && this.byResource.get(resource) === groups) this.byResource.delete(resource);
    };
  }

  /** Resolves once every change up to `revision` (a committed one) has been published. */
  reached(revision: number): Promise<void> {
    if (this.published >= revision || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ revision, resolve });
      // Its announcement may be a moment away; if not, the history has it (or it is no model's).
      setImmediate(() => this.fillGap(revision));
    });
  }

  /**
   * Every change up to `revision` has been announced (the change feed says so after each pass): revisions that belong
   * to no model are passed at once, rather than after the gap timeout.
   */
  advance(revision: number): void {
    // After the flush the feed's announcements queued (collect), so what they carry is published first.
    process.nextTick(() => {
      if (this.closed || this.announced.length > 0 || this.held.length > 0 || this.published >= revision) return;
      this.published = revision;
      this.release();
    });
  }

  /**
   * The change feed re-lists at `revision` (it fell behind the compacted history): what it missed is gone, so
   * publishing goes on after that revision, and the re-list's own announcements (at that revision) are not published.
   */
  restartAt(revision: number): void {
    this.published = Math.max(this.published, revision);
    this.held = this.held.filter((change) => change.revision > this.published);
    this.release();
  }

  close(): void {
    this.closed = true;
    this.stopListening();
    this.byResource.clear();
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }

  private collect(change: LiveChange): void {
    this.announced.push(change);
    // A tick queued from a microtask runs once the microtask queue has drained: every write of the batch is in.
    if (this.announced.length === 1) process.nextTick(() => this.flush());
  }

  private flush(): void {
    const fresh = this.announced;
    this.announced = [];
    this.held = this.held.concat(fresh).sort((a, b) => a.revision - b.revision);
    this.drain();
    if (this.held.length > 0) setImmediate(() => this.fillGap(this.held[0] ? this.held[0].revision - 1 : 0));
  }

  /** Publishes the held changes that follow on without a gap; drops revisions already published. */
  private drain(): void {
    let i = 0;
    for (; i < this.held.length && this.held[i]!.revision <= this.published + 1; i++) {
      if (this.held[i]!.revision > this.published) this.publish(this.held[i]!);
    }
    if (i > 0) this.held = this.held.slice(i);
  }

  /** Closes the gap up to `revision` from the store's history. */
  private fillGap(revision: number): void {
    if (this.filling || this.closed || revision <= this.published) return;
    this.filling = true;
    const from = this.published;
    this.store
      .changesSince(from, revision - from)
      .then((changes) => {
        const before = this.published;
        for (const change of changes) {
          if (change.revision > revision) break;
          if (change.revision <= this.published) continue;
          const served = this.registry.all().find((s) => s.model.resource === change.resource);
          if (served) {
            this.objects.publishedAhead(served, change.name, change.revision);
            this.publish(LiveChange.fromHistory(change, served));
          } else this.published = change.revision;
        }
        this.skipEmptyGap(before, revision);
      })
      .catch((error: unknown) => {
        // Compacted meanwhile: what is gone cannot be published; go on after it.
        this.onError(error);
        this.published = Math.max(this.published, revision);
      })
      .finally(() => {
        this.filling = false;
        this.drain();
        this.release();
        const next = this.held[0]
          ? this.held[0].revision - 1
          : this.waiters.reduce((m, w) => Math.max(m, w.revision), 0);
        // Polled, not spun: a revision the history does not hold yet may be a transaction about to commit.
        if (next > this.published) setTimeout(() => this.fillGap(next), this.emptySince ? GAP_POLL_MS : 0);
      });
  }

  /**
   * A revision can be missing from the history for good (taken by a transaction that rolled back, or removed from
   * it) or for a moment (its transaction commits late). When a read finds nothing past `before`, the gap is waited
   * for up to `gapTimeoutMs` (5 s by default), then given up as empty, so publishing never stalls and never spins on it.
   */
  private skipEmptyGap(before: number, revision: number): void {
    if (this.published > before) {
      this.emptySince = undefined;
      return;
    }
    if (this.emptySince?.from !== before) this.emptySince = { from: before, at: Date.now() };
    else if (Date.now() - this.emptySince.at >= this.gapTimeoutMs) {
      this.published = Math.max(this.published, revision);
      this.emptySince = undefined;
    }
  }

  private publish(change: LiveChange): void {
    this.published = change.revision;
    const groups = this.byResource.get(change.change.served.model.resource);
    if (groups) {
      for (const { selection, listeners } of groups.values()) {
        if (selection && change.typeFor(selection) === undefined) continue;
        for (const listener of listeners) {
          try {
            listener(change);
          } catch (error) {
            this.onError(error);
          }
        }
      }
    }
    if (this.waiters.length > 0) this.release();
  }

  private release(): void {
    const due = this.waiters.filter((w) => w.revision <= this.published);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.revision > this.published);
    for (const waiter of due) waiter.resolve();
  }
}
