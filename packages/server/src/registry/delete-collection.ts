import { isNotFound } from '@svc/plugin-api';
import type { IndexQuery } from '../index/model-index.js';
import type { Store } from '../store/types.js';
import { Progress, type ProgressPoint } from '../util/progress.js';
import { type Admission, SYSTEM } from './admission.js';
import { decodeObject } from './codec.js';
import type { ServedModel } from './model-registry.js';
import type { WriteOptions, Written } from './write-types.js';

/** Deletions run and read this many at a time, so the store can commit them together without a promise per object. */
const SLICE = 256;

export interface CollectionDeletion {
  store: Store;
  admission: Admission;
  now: () => Date;
  /** The delete of one object (the write pipeline's). */
  deleteOne: (name: string) => Promise<Written>;
}

/**
 * Deletes every object the query selects; returns how many. `onProgress` hears of long deletions about once a second
 * (with the total), never once per object.
 */
export async function deleteCollection(
  deps: CollectionDeletion,
  served: ServedModel,
  query: Pick<IndexQuery, 'labels' | 'fields'>,
  options: WriteOptions,
  onProgress?: (point: ProgressPoint & { total: number }) => void,
): Promise<number> {
  const { names } = served.index.query({ ...query, sort: [] });
  // All or nothing where admission can refuse: every deletion is checked before the first one is made.
  if (deps.admission.has(served.model.resource)) await admitDeletions(deps, served, names, options);
  if (options.dryRun) return names.length;
  let deleted = 0;
  const progress = new Progress((point) => onProgress?.({ ...point, total: names.length }));
  for (let i = 0; i < names.length; i += SLICE) {
    const results = await Promise.allSettled(names.slice(i, i + SLICE).map((name) => deps.deleteOne(name)));
    for (const result of results) {
      if (result.status === 'fulfilled') deleted++;
      // Removed concurrently by someone else: not ours to count, and not an error.
      else if (!isNotFound(result.reason)) throw result.reason;
    }
    progress.add(results.length);
  }
  return deleted;
}

/** Runs the admission checks of every deletion the collection's delete would make, as dry runs. */
async function admitDeletions(
  deps: CollectionDeletion,
  served: ServedModel,
  names: readonly string[],
  options: WriteOptions,
): Promise<void> {
  const deletionTimestamp = deps.now().toISOString();
  const actor = options.actor ?? SYSTEM;
  for (let i = 0; i < names.length; i += SLICE) {
    const records = await deps.store.getMany(served.model.resource, names.slice(i, i + SLICE));
    for (const record of records) {
      const prev = decodeObject(record.value);
      if (prev.metadata.deletionTimestamp) continue;
      const object = { ...prev, metadata: { ...prev.metadata, deletionTimestamp } };
      await deps.admission.run({ operation: 'delete', served, object, prevObject: prev, actor, dryRun: true });
    }
  }
}
