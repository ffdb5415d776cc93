import { CONSOLE_API, client, errorMessage, hasPermission } from '@svc/console-shared';
import { PLUGIN_NAME_LABEL, type PluginLogEntry } from '@svc/plugin-api';
import { ref } from 'vue';
import { ROLES, type RoleObject } from '../users-roles/roles';

/** What the log endpoint answers: the latest start attempt's lines and the host's verdict. */
export interface PluginLogs {
  name: string;
  phase?: string;
  reason?: string;
  entries: PluginLogEntry[];
}

/** A plugin's log of its latest start, read on demand (the endpoint is not watched). */
export function usePluginLogs(name: () => string) {
  const logs = ref<PluginLogs>();
  const error = ref('');
  const loading = ref(false);
  async function refresh() {
    loading.value = true;
    try {
      logs.value = await client.request<PluginLogs>('GET', `${CONSOLE_API}/plugins/${name()}/logs`);
      error.value = '';
    } catch (e) {
      error.value = errorMessage(e);
    } finally {
      loading.value = false;
    }
  }
  return { logs, error, loading, refresh };
}

/**
 * The roles a plugin declares: those the host labelled with the plugin as owner. They exist while it runs (the host
 * creates them at start and removes them at stop). Reading them needs the Roles view.
 */
export function usePluginRoles(name: () => string) {
  const roles = ref<RoleObject[]>([]);
  const error = ref('');
  const allowed = () => hasPermission(['system:roles:view']);
  async function refresh() {
    if (!allowed()) return;
    try {
      roles.value = (
        await client.resource<RoleObject>(ROLES).list({ labelSelector: `${PLUGIN_NAME_LABEL}=${name()}` })
      ).items;
      error.value = '';
    } catch (e) {
      error.value = errorMessage(e);
    }
  }
  return { roles, error, allowed, refresh };
}
