import { LRUCache } from 'lru-cache';
import type { StoredRecord } from '../store/types.js';
import type { CommittedChange } from './commit-bus.js';

/**
 * The recently changed objects as this server has applied them: its own writes at commit, other replicas' as the
 * change feed brings them, from the commit bus in commit order (k8s' watch cache, after controller-runtime's informer
 * reads). On a store shared by replicas a read here may lag another replica's write by the feed's delay, so only two
 * kinds of reader use it: a write's read of the current object (the store checks the revision it read in the commit's
 * own transaction, and a write that fails on this state is run again on the store's: object-writes.ts), and a
 * reconciler (level-based: a change it missed reaches it as the next event). A GET still reads the store.
 *
 * Why: on PostgreSQL each such read was a round trip of its own, three for every person created (the people
 * controller's two reconciles and its status write's read), most of a create's main-thread time.
 */
export class AppliedObjects {
  private readonly cache: LRUCache<string, StoredRecord>;
  /**
   * Revisions known to have committed for an object before their announcement reached this server (the watch hub
   * publishes from the history to close a gap): what is held below them is not served, since a reconcile the hub's
   * event started must see that change, and the hub does not publish it again when it is announced.
   */
  private readonly floors = new Map<string, number>();

  constructor(maxBytes = 8 * 1024 * 1024) {
    this.cache = new LRUCache<string, StoredRecord>({
      maxSize: maxBytes,
      sizeCalculation: (record) => record.value.length + record.name.length + 64,
    });
  }

  get(resource: string, name: string): StoredRecord | undefined {
    const key = keyOf(resource, name);
    const record = this.cache.get(key);
    const floor = this.floors.get(key);
    return record && (floor === undefined || record.revision >= floor) ? record : undefined;
  }

  /** A change of the object at `revision` committed, and its announcement is still to come. */
  expect(resource: string, name: string, revision: number): void {
    const key = keyOf(resource, name);
    if ((this.cache.peek(key)?.revision ?? 0) >= revision) return;
    // The announcements lag by the change feed's delay; this many waiting means something is wrong: hold nothing.
    if (this.floors.size >= MAX_FLOORS) {
      this.floors.clear();
      this.cache.clear();
    }
    this.floors.set(key, Math.max(revision, this.floors.get(key) ?? 0));
  }

  /** Takes a committed change (subscribed to the commit bus before any other listener). */
  apply(change: CommittedChange): void {
    const { resource } = change.served.model;
    const { name, resourceVersion } = change.object.metadata;
    const key = keyOf(resource, name);
    const floor = this.floors.get(key);
    if (floor !== undefined && change.revision >= floor) this.floors.delete(key);
    if (change.type === 'DELETED') {
      this.cache.delete(key);
      return;
    }
    // The object's own revision, not the change's: a re-list announces every object at the list's revision.
    const revision = Number(resourceVersion);
    const held = this.cache.peek(key);
    if (!Number.isSafeInteger(revision) || (held && held.revision > revision)) return;
    this.cache.set(key, { resource, name, revision, value: change.bytes });
  }
}

const MAX_FLOORS = 10_000;

const keyOf = (resource: string, name: string) => `${resource}\u0000${name}`;
