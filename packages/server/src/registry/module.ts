import { defineModule, ref } from '../kernel/module.js';
import { loggerRef, settingsRef } from '../kernel/root.js';
import { pluginServiceGroups } from '../objects/domains.js';
import { storeRef } from '../store/module.js';
import { ChangeFeed } from './change-feed.js';
import { IndexSnapshots } from './index-snapshots.js';
import { ModelRegistry } from './model-registry.js';
import { ObjectService } from './object-service.js';
import { saveIndexSnapshots } from './save-snapshots.js';

/**
 * Which API groups a plugin owns: the plugin host knows (its models' and routes' groups), role admission asks (what a
 * plugin declares is bounded by them). The plugins module provides the answer; until it does, or without it, a plugin
 * owns only its own `svc.run` groups.
 */
export class PluginGroups {
  private source?: (plugin: string) => readonly string[];

  provide(source: (plugin: string) => readonly string[]): void {
    this.source = source;
  }

  of(plugin: string): readonly string[] {
    return this.source?.(plugin) ?? pluginServiceGroups(plugin);
  }
}

export interface RegistryServices {
  registry: ModelRegistry;
  objects: ObjectService;
  /** How this replica follows the others' writes (a shared store only). */
  feed?: ChangeFeed;
  pluginGroups: PluginGroups;
}

export const registryRef = ref<RegistryServices>('registry');

/**
 * The models and the one object service behind them. On a shared store the change feed follows the other replicas'
 * writes from before any index is built (so none is missed), and catches up at the start of the boot phase, inside
 * the store's boot lock, so each replica boots on what those before it wrote. At a stop, once writers are done, large
 * models' indexes are written down for the next start.
 */
export const registryModule = defineModule({
  name: 'registry',
  phase: 'open',
  needs: { store: storeRef, settings: settingsRef, logger: loggerRef },
  provides: registryRef,
  async start({ store: { store }, settings, logger }, lifecycle) {
    const snapshots =
      settings.indexSnapshotMinObjects === undefined
        ? undefined
        : new IndexSnapshots(store.secrets, { minObjects: settings.indexSnapshotMinObjects });
    const registry = new ModelRegistry(store, logger, snapshots);
    const objects = new ObjectService(store, (error) => logger.error({ err: error }, 'a commit listener failed'));
    const feed = store.shared
      ? new ChangeFeed(store, registry, objects, {
          onError: (error) => logger.error({ err: error }, 'following the store failed'),
          onFellBehind: (error) =>
            logger.warn({ err: error }, 'this replica fell behind the compacted history: listing the store again'),
          onRelisted: (revision, elapsedMs) =>
            logger.info({ revision, elapsedMs }, `listed the store again at revision ${revision}; serving`),
        })
      : undefined;
    if (feed) {
      await feed.start();
      lifecycle.onStop('services', () => feed.close());
      lifecycle.aroundPhase('boot', async (run) => {
        await feed.sync();
        await run();
      });
    }
    if (snapshots) {
      lifecycle.onStop('snapshots', () =>
        saveIndexSnapshots({
          registry,
          objects,
          snapshots,
          logger,
          appliedRevision: feed
            ? async () => {
                await feed.sync();
                return feed.revision;
              }
            : () => store.currentRevision(),
        }),
      );
    }
    return { registry, objects, feed, pluginGroups: new PluginGroups() };
  },
});
