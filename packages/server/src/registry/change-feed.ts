/**
 * The change feed: how a server follows writes that other servers commit to a shared store (PostgreSQL), the way
 * each Kubernetes API server's watch cache follows etcd. It reads the store's revisioned log by revision, so a lost
 * notification costs only latency: woken by the store's notices, and polled besides. Each change of a served model
 * goes through the object service (`applyRemote`), which updates the model's indexes and announces it as it
 * announces its own writes, so the watch hub, reconcilers and every cache (users, tokens, roles, bindings) hear it.
 * Revisions this server wrote were announced already and are passed over.
 *
 * Writers of a PostgreSQL store commit in revision order (postgres.ts), so a revision missing between two read ones
 * is one the store skipped (a restore's skipTo) or, if ever the order were not kept, one about to commit: like kine,
 * the feed waits for such a gap for `gapTimeoutMs`, re-reading, before it goes on without it.
 */
import { type Change, CompactedError, type Store } from '../store/types.js';
import type { ModelRegistry } from './model-registry.js';
import type { ObjectService } from './object-service.js';

export interface ChangeFeedOptions {
  /** How often the store is read when no notice comes (a notice can be lost). Default 1000 ms. */
  pollMs?: number;
  /** How long a gap in revisions is waited for. Default 1000 ms. */
  gapTimeoutMs?: number;
  /** Changes read per query. Default 1000. */
  batchSize?: number;
  /** How long after it was last fully caught up a server still counts as caught up. Default 5000 ms. */
  readyLagMs?: number;
  onError?: (error: unknown) => void;
  /** Told when the history this server needs was compacted away before it read it: it re-lists (see relist). */
  onFellBehind?: (error: CompactedError) => void;
  /** Told when a re-list is done, with the revision it listed at. */
  onRelisted?: (revision: number, elapsedMs: number) => void;
}

export class ChangeFeed {
  /** Every change up to this revision has been applied here. */
  private applied = 0;
  /** The highest revision the store is known to have reached (from notices and polls). */
  private known = 0;
  private pumping: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private gapSince: number | undefined;
  private stopListening: (() => void) | undefined;
  private closed = false;
  private behind = false;
  /** When a pass last ended with everything known applied. */
  private caughtUpAt: number | undefined;
  /** When the store last answered a poll: a server cut off from it hears nothing, and must not count as current. */
  private heardAt = Date.now();
  private readonly caughtUpListeners = new Set<(revision: number) => void>();
  /** Changes of models still building their indexes, applied once they are registered. */
  private readonly heldForLoading = new Map<string, { load: number; changes: Change[] }>();
  private readonly stopFollowingModels: () => void;
  private readonly options: Required<Omit<ChangeFeedOptions, 'onError' | 'onFellBehind' | 'onRelisted'>> &
    ChangeFeedOptions;
  private readonly relistListeners = new Set<(revision: number) => void>();

  constructor(
    private readonly store: Store,
    private readonly registry: ModelRegistry,
    private readonly objects: ObjectService,
    options: ChangeFeedOptions = {},
  ) {
    this.options = { pollMs: 1000, gapTimeoutMs: 1000, batchSize: 1000, readyLagMs: 5000, ...options };
    this.stopFollowingModels = registry.onChange((event, served) => {
      const held = this.heldForLoading.get(served.model.resource);
      this.heldForLoading.delete(served.model.resource);
      if (event !== 'registered' || !held || held.load !== registry.loadOf(served)) return;
      // Older than what the scan saw, some of them: applied in order, they end at the latest state all the same.
      for (const change of held.changes) {
        void this.objects.applyRemote(served, change).catch((error: unknown) => this.options.onError?.(error));
      }
    });
  }

  /** Starts following from the store's current revision (read before the indexes are built, so nothing is missed). */
  async start(): Promise<void> {
    this.applied = this.known = await this.store.currentRevision();
    this.heardAt = Date.now();
    this.caughtUpAt = Date.now();
    this.stopListening = this.store.listen((notice) => {
      if (notice.type === 'revision') this.learn(notice.revision);
      else if (notice.type === 'reset') this.poke();
    });
    this.schedulePoll();
  }

  /** The revision up to which this server has applied every change. */
  get revision(): number {
    return this.applied;
  }

  /** Every change up to `revision` is applied and announced: the object service's reads may count on it. */
  private advance(revision: number): void {
    this.applied = revision;
    this.objects.followedUpTo(revision);
  }

  /**
   * Whether this server serves current data: it has applied everything the store held at some moment in the last
   * `readyLagMs` (so ordinary lag under a steady stream of writes does not make it flap), and lost no history.
   */
  get caughtUp(): boolean {
    if (this.behind || this.unheard) return false;
    if (this.applied >= this.known) return true;
    return this.caughtUpAt !== undefined && Date.now() - this.caughtUpAt < this.options.readyLagMs;
  }

  /** Whether the store has not answered a poll for `readyLagMs` and more (the link to it is down or cut). */
  get unheard(): boolean {
    return Date.now() - this.heardAt > this.options.readyLagMs + this.options.pollMs;
  }

  /** Called after each pass with the revision every change up to which has been applied (the hub's heartbeat). */
  onCaughtUp(listener: (revision: number) => void): () => void {
    this.caughtUpListeners.add(listener);
    return () => this.caughtUpListeners.delete(listener);
  }

  /**
   * Told, before a re-list applies anything, of the revision it lists at: what followed the lost history (watches,
   * which missed events; the hub, whose next revision is gone) starts again from there.
   */
  onRelist(listener: (revision: number) => void): () => void {
    this.relistListeners.add(listener);
    return () => this.relistListeners.delete(listener);
  }

  /** Whether this server is re-listing after falling behind the compacted history (it is not ready meanwhile). */
  get relisting(): boolean {
    return this.behind;
  }

  /** Reads the store now, and resolves once every change up to the store's current revision is applied. */
  async sync(): Promise<void> {
    this.learn(await this.store.currentRevision());
    while (this.pumping) await this.pumping;
  }

  close(): void {
    this.closed = true;
    this.stopFollowingModels();
    clearTimeout(this.timer);
    this.stopListening?.();
  }

  private learn(revision: number): void {
    if (revision > this.known) this.known = revision;
    this.poke();
  }

  private poke(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.pumping = undefined;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  private schedulePoll(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      // A poll the store never answers (a link cut silently: its connection hangs until TCP gives up, minutes later)
      // is given up after a few periods, so the next one, on another connection, finds the store once it is back.
      answered(this.store.currentRevision(), this.options.pollMs * 3)
        .then((revision) => {
          this.heardAt = Date.now();
          this.learn(revision);
        }, this.options.onError)
        .finally(() => this.schedulePoll());
    }, this.options.pollMs);
    this.timer.unref();
  }

  /** Applies changes until the known revision is reached (or a gap holds it up). */
  private async pump(): Promise<void> {
    for (;;) {
      // This server's own writes need no read.
      while (this.objects.takeLocal(this.applied + 1)) this.applied++;
      if (this.applied >= this.known) break;
      let changes: Change[];
      try {
        // Given up as a poll is (a read hung on a cut link would stop the feed until TCP gives up): the next pass
        // reads again, on another connection.
        changes = await answered(
          this.store.changesSince(this.applied, this.options.batchSize),
          this.options.pollMs * 10,
        );
      } catch (error) {
        if (!(error instanceof CompactedError)) throw error;
        this.behind = true;
        this.options.onFellBehind?.(error);
        await this.relist();
        continue;
      }
      if (changes.length === 0) {
        // The known revision is not in the history (yet): a skip, or a commit still under way.
        if (!this.waitedOutGap()) return this.retryGap();
        this.advance(this.known);
        break;
      }
      const first = changes[0]!.revision;
      if (first > this.applied + 1 && !this.waitedOutGap()) return this.retryGap();
      this.gapSince = undefined;
      const applying: Promise<void>[] = [];
      for (const change of changes) {
        const served = this.registry.findByResource(change.resource);
        if (served) applying.push(this.objects.applyRemote(served, change));
        else if (this.registry.loadingOf(change.resource) !== undefined) this.holdForLoading(change);
        else this.objects.takeLocal(change.revision);
        if (change.revision > this.known) this.known = change.revision;
      }
      await Promise.all(applying);
      this.advance(changes[changes.length - 1]!.revision);
    }
    this.gapSince = undefined;
    this.caughtUpAt = Date.now();
    for (const listener of this.caughtUpListeners) listener(this.applied);
  }

  /**
   * Recovers from a history compacted past this server, as a Kubernetes reflector does after a 410: the store's
   * revision is read, every served model's stored objects are listed and its index brought to them (applyListed),
   * and following goes on from that revision. Changes committed while listing are applied again after it, which
   * leaves the same state. The server is not ready (caughtUp is false) until the list is applied.
   */
  private async relist(): Promise<void> {
    const started = Date.now();
    const revision = await this.store.currentRevision();
    for (const listener of this.relistListeners) listener(revision);
    for (const served of this.registry.all()) {
      const listed = new Map<string, Buffer>();
      for await (const batch of this.store.scan(served.model.resource)) {
        for (const record of batch) listed.set(record.name, record.value);
      }
      await this.objects.applyListed(served, listed, revision);
    }
    // Local writes committed up to here were announced already; the feed goes on after the listed revision.
    this.objects.passLocalUpTo(revision);
    this.advance(Math.max(this.applied, revision));
    this.known = Math.max(this.known, revision);
    this.behind = false;
    this.options.onRelisted?.(revision, Date.now() - started);
  }

  private holdForLoading(change: Change): void {
    const load = this.registry.loadingOf(change.resource)!;
    const held = this.heldForLoading.get(change.resource);
    if (held?.load === load) held.changes.push(change);
    else this.heldForLoading.set(change.resource, { load, changes: [change] });
  }

  private waitedOutGap(): boolean {
    const now = Date.now();
    this.gapSince ??= now;
    return now - this.gapSince >= this.options.gapTimeoutMs;
  }

  private retryGap(): void {
    setTimeout(() => this.poke(), 20).unref();
  }
}

/** `promise`, or a rejection once `ms` have passed without its answer. */
function answered<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
