import type { Logger } from 'pino';
import { defineModule, ref } from '../kernel/module.js';
import { loggerRef, optionsRef, settingsRef } from '../kernel/root.js';
import { makePrivateTree } from '../util/private-files.js';
import { runFenced } from './fence.js';
import { openStore } from './open-store.js';
import { fixedLease } from './sole-lease.js';
import { FencedError, type Lease, type Store } from './types.js';

export interface StoreOptions {
  /** PostgreSQL schema to keep the tables in (tests give each server its own); default SVC_DATABASE_SCHEMA, or `public`. */
  databaseSchema?: string;
}

export interface StoreServices {
  store: Store;
  /**
   * What must run once among replicas (reconcilers, garbage collection, compaction, removing a plugin's objects) runs
   * where this lease is held; a store only this process opens holds it for good, a server with controllers off never.
   */
  lease: Lease;
  /**
   * Runs `work` as the lease's holder: every store write it makes carries the lease's epoch, and a shared store refuses
   * it (FencedError) once another server holds the lease (fence.ts).
   */
  fenced: <T>(work: () => Promise<T>) => Promise<T>;
  /** As `fenced`, but resolves false instead of failing when the store refused a write because the lease moved on. */
  whileLeading: (work: () => Promise<void>) => Promise<boolean>;
}

export const storeRef = ref<StoreServices>('store');

/**
 * The store the settings name. Replicas booting at once take turns through the `boot` phase (built-in roles, the
 * super administrator and plugins' declared objects are written by one at a time); the store closes last.
 */
export const storeModule = defineModule({
  name: 'store',
  phase: 'open',
  needs: { settings: settingsRef, logger: loggerRef, options: optionsRef<StoreOptions>() },
  provides: storeRef,
  async start({ settings, logger, options }, lifecycle) {
    await warnOfWidePermissions(settings.dataDir, logger);
    const store = await openStore({
      dataDir: settings.dataDir,
      databaseUrl: settings.databaseUrl,
      schema: options.databaseSchema ?? settings.databaseSchema,
      server: true,
      replicaId: settings.replicaId,
      sqliteSync: settings.sqliteSync,
    });
    lifecycle.onStop('services', () => store.close());
    logger.info(
      { dialect: store.dialect, durability: store.durability },
      `store: ${store.dialect}, ${store.durability}`,
    );
    lifecycle.aroundPhase('boot', async (run) => {
      const unlock = await store.lock('boot');
      try {
        await run();
      } finally {
        await unlock();
      }
    });
    const lease = settings.controllers ? store.lease('controllers') : fixedLease(false);
    if (!settings.controllers) logger.warn('controllers are off (SVC_CONTROLLERS=off): this server never reconciles');
    const fenced = <T>(work: () => Promise<T>) => runFenced(lease, work);
    const whileLeading = (work: () => Promise<void>) =>
      fenced(work).then(
        () => true,
        (error: unknown) => {
          if (error instanceof FencedError) return false;
          throw error;
        },
      );
    return { store, lease, fenced, whileLeading };
  },
});

/**
 * The data directory is its owner's alone (util/private-files.ts): one that others could read (made by an older svc,
 * or copied with a wide umask) is tightened before anything opens it, and the log says what was changed.
 */
async function warnOfWidePermissions(dataDir: string, logger: Logger): Promise<void> {
  const changed = await makePrivateTree(dataDir);
  if (changed.length === 0) return;
  logger.warn(
    { paths: changed.slice(0, 20), count: changed.length },
    `the data directory ${dataDir} was readable by other users: removed their access to ${changed.length} ` +
      `files and folders (the database holds password hashes and token digests)`,
  );
}
