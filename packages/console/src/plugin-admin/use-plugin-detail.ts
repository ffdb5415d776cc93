import { t } from '@svc/console-shared';
import { computed, onMounted, watch } from 'vue';
import { factsOf, titleOf } from './plugin';
import { usePluginLogs, usePluginRoles } from './use-plugin-extras';
import { usePlugins } from './use-plugins';

/**
 * One plugin, followed live: its object, facts and phase, the log of its latest start and the roles it declares. A
 * start or stop writes a new log and adds or removes the plugin's roles, so both are read again when the phase moves.
 */
export function usePluginDetail(name: () => string) {
  const { plugins, loaded, error: watchError } = usePlugins();
  const plugin = computed(() => plugins.value.find((p) => p.metadata.name === name()));
  const title = computed(() => (plugin.value ? titleOf(plugin.value) : name()));
  const facts = computed(() => (plugin.value ? factsOf(plugin.value, (key) => t(key)) : []));
  const phase = computed(() => plugin.value?.status?.phase);
  const logs = usePluginLogs(name);
  const roles = usePluginRoles(name);

  onMounted(() => {
    void logs.refresh();
    void roles.refresh();
  });
  watch(phase, (now, before) => {
    if (before === undefined || now === before) return;
    void logs.refresh();
    void roles.refresh();
  });
  // A rollback ends where it began (STARTED), which the phase may not show: its log tells of the failed start.
  watch(
    () => plugin.value?.status?.lastUpgrade?.at,
    (now, before) => {
      if (now !== before && now !== undefined) void logs.refresh();
    },
  );

  return { plugin, loaded, watchError, title, facts, phase, logs, roles };
}
