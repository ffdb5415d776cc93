import type { Logger } from 'pino';
import type { IndexSnapshots } from './index-snapshots.js';
import type { ModelRegistry } from './model-registry.js';
import type { ObjectService } from './object-service.js';

export interface SaveSnapshotsDeps {
  registry: ModelRegistry;
  objects: ObjectService;
  snapshots: IndexSnapshots;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * A revision every change up to which is in the indexes: the store's current revision when this server is its only
   * writer, the change feed's applied revision when replicas share it.
   */
  appliedRevision: () => Promise<number>;
  /** How long to wait for a moment with no write under way (default 2 s). */
  waitMs?: number;
}

/**
 * Writes the index snapshots as the server stops, after its API and controllers have: at a moment with no write under
 * way (then the indexes hold exactly what was committed), every served model's records are encoded at once, then
 * written. A failure is logged and costs only the next start its speed.
 */
export async function saveIndexSnapshots(deps: SaveSnapshotsDeps): Promise<void> {
  const { registry, objects, snapshots, logger } = deps;
  // Most servers hold no model that large: then the store is not touched at all. (A model that shrank below the
  // minimum keeps its last snapshot until a stop at which another model gets one; it stays correct until then.)
  if (registry.snapshotSources().every((source) => source.size < snapshots.minObjects)) return;
  const deadline = Date.now() + (deps.waitMs ?? 2000);
  for (;;) {
    const revision = await deps.appliedRevision();
    // Checked in the same turn as the encoding below: nothing can start a write in between.
    if (!objects.writing) {
      const startedAt = Date.now();
      const encoded = snapshots.encode(registry.snapshotSources());
      try {
        await snapshots.write(encoded, revision);
      } catch (error) {
        logger.error(
          { err: error },
          'writing the index snapshots failed: the next start builds indexes from the store',
        );
        return;
      }
      const written = encoded.filter(({ chunks }) => chunks !== undefined);
      if (written.length > 0) {
        const objectCount = written.reduce((sum, { source }) => sum + source.size, 0);
        logger.info(
          { models: written.map(({ source }) => source.resource), objects: objectCount, revision },
          `wrote index snapshots of ${written.length} models (${objectCount} objects) in ${Date.now() - startedAt} ms`,
        );
      }
      return;
    }
    if (Date.now() >= deadline) {
      logger.warn('index snapshots not written: writes were still under way; the next start builds from the store');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
