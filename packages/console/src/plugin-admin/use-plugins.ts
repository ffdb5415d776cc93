import type { Informer } from '@svc/client';
import { client, errorMessage, t } from '@svc/console-shared';
import { onBeforeUnmount, onMounted, ref, shallowRef } from 'vue';
import { PLUGINS, type Plugin } from './plugin';

/**
 * The installed plugins, kept current by the client's informer: it lists, then watches from that revision and resumes
 * where it left off, so a change made anywhere (another console, the CLI, a controller) shows without a reload.
 */
export function usePlugins() {
  const plugins = shallowRef<Plugin[]>([]);
  const loaded = ref(false);
  const error = ref('');
  let informer: Informer<Plugin> | undefined;

  onMounted(async () => {
    const refresh = () => {
      plugins.value = informer?.list() ?? [];
    };
    informer = client.resource<Plugin>(PLUGINS).informer({
      add: refresh,
      update: refresh,
      delete: refresh,
      error: (e) => (error.value = t('plugins.paused', { reason: errorMessage(e) })),
      watching: () => (error.value = ''),
    });
    try {
      await informer.start();
      refresh();
    } catch (e) {
      error.value = errorMessage(e);
    } finally {
      loaded.value = true;
    }
  });
  onBeforeUnmount(() => void informer?.stop());

  return { plugins, loaded, error };
}
