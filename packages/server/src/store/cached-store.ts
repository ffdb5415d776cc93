import { LRUCache } from 'lru-cache';
import type { Store, StoredRecord } from './types.js';

/**
 * A read cache in front of a store that this process alone writes (the embedded SQLite store): the records of recently
 * written or read objects, bounded by their total size. It has the store's own interface (k8s' cacher habit), so
 * nothing else knows it is there. A write reaches the cache only after the store committed it, so the cache never
 * serves a value that is not durable. Not for a database shared by several servers: their writes would not reach it.
 *
 * Why: a point query through SQLite costs far more than a map lookup even with every page cached, and a page of 20
 * such queries would be most of a list request.
 */
export function withReadCache(store: Store, maxBytes = 4 * 1024 * 1024): Store {
  const cache = new LRUCache<string, StoredRecord>({
    maxSize: maxBytes,
    sizeCalculation: (record) => record.value.length + record.name.length + 64,
  });
  const key = (resource: string, name: string) => `${resource}\u0000${name}`;
  const remember = (record: StoredRecord) => {
    cache.set(key(record.resource, record.name), ownBytes(record));
    if (latest !== undefined && record.revision > latest) latest = record.revision;
    return record;
  };
  let latest: number | undefined;

  return {
    ...store,
    dialect: store.dialect,
    // Secrets bypass the cache: their callers keep their own (sessions) or are slow on purpose (password checks).
    secrets: store.secrets,
    async currentRevision() {
      latest ??= await store.currentRevision();
      return latest;
    },
    async get(resource, name) {
      const hit = cache.get(key(resource, name));
      if (hit) return hit;
      const record = await store.get(resource, name);
      return record && remember(record);
    },
    async getMany(resource, names) {
      const found = new Map<string, StoredRecord>();
      const missing: string[] = [];
      for (const name of names) {
        const hit = cache.get(key(resource, name));
        if (hit) found.set(name, hit);
        else missing.push(name);
      }
      if (missing.length > 0)
        for (const record of await store.getMany(resource, missing)) found.set(record.name, remember(record));
      return names.flatMap((name) => found.get(name) ?? []);
    },
    scan: (resource, batchSize) => store.scan(resource, batchSize),
    count: (resource) => store.count(resource),
    resources: () => store.resources(),
    create: async (resource, name, encode, claims) => remember(await store.create(resource, name, encode, claims)),
    update: async (resource, name, expected, encode, claims) =>
      remember(await store.update(resource, name, expected, encode, claims)),
    async delete(resource, name, expected) {
      const removed = await store.delete(resource, name, expected);
      cache.delete(key(resource, name));
      if (latest !== undefined && removed.revision > latest) latest = removed.revision;
      return removed;
    },
    changesSince: (after, limit) => store.changesSince(after, limit),
    compact: (keep) => store.compact(keep),
    oldestResumableRevision: () => store.oldestResumableRevision(),
    async skipTo(revision) {
      await store.skipTo(revision);
      latest = undefined;
    },
    async restore(revision, objects, secrets) {
      await store.restore(revision, objects, secrets);
      latest = undefined;
    },
    backfillClaims: (resource, index, holders) => store.backfillClaims(resource, index, holders),
    listen: (listener) => store.listen(listener),
    lease: (name) => store.lease(name),
    lock: (name) => store.lock(name),
    close: () => store.close(),
  };
}

/**
 * The record with bytes in an allocation of their own. A small Buffer is often a view into a shared 8 KiB pool slab
 * (Buffer.from, better-sqlite3's results): kept for long, each such view pins its whole slab, so a cache of small
 * objects would hold many times the bytes it counts. Copying once on the way in bounds the cache by what it counts.
 */
function ownBytes(record: StoredRecord): StoredRecord {
  const value = record.value;
  if (value.byteOffset === 0 && value.buffer.byteLength === value.length) return record;
  const own = Buffer.allocUnsafeSlow(value.length);
  value.copy(own);
  return { ...record, value: own };
}
