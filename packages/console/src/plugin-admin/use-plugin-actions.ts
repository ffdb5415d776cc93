import { CONSOLE_API, client, errorMessage, t } from '@svc/console-shared';
import { apisPath, PLUGIN_GROUP, type UninstallData } from '@svc/plugin-api';
import { useConfirm } from 'primevue/useconfirm';
import { useToast } from 'primevue/usetoast';
import { ref } from 'vue';
import { PLUGIN_TRUST, type Plugin, titleOf } from './plugin';

const MANAGE = `${CONSOLE_API}/plugins`;
const PLUGIN_OBJECTS = `${apisPath(PLUGIN_GROUP)}/plugins`;

/** A call svc answered well whose outcome is still a failure (a plugin that did not start): said as it is. */
class Outcome extends Error {}

/** The archive as the install and upgrade endpoints take it: multipart field `file`. */
function archiveForm(file: File): FormData {
  const form = new FormData();
  form.append('file', file, file.name);
  return form;
}

/**
 * Install, enable, disable, upgrade and uninstall, each confirmed in a dialog naming the plugin (upgrade and uninstall
 * have dialogs of their own, which are the confirmation). What went wrong is kept in `error` (svc's own words) for the
 * page or dialog to show in an alert; what went right is a toast.
 */
export function usePluginActions() {
  const confirm = useConfirm();
  const toast = useToast();
  /** The plugin an action is under way for (its buttons wait). */
  const busy = ref<string>();
  const error = ref('');

  const confirmed = (header: string, message: string, label: string, danger = false) =>
    new Promise<boolean>((resolve) =>
      confirm.require({
        header,
        message,
        acceptProps: { label, severity: danger ? 'danger' : undefined },
        rejectProps: { label: t('common.cancel'), severity: 'secondary', outlined: true },
        accept: () => resolve(true),
        reject: () => resolve(false),
        onHide: () => resolve(false),
      }),
    );

  async function run(name: string, what: () => Promise<void>): Promise<boolean> {
    busy.value = name;
    error.value = '';
    try {
      await what();
      return true;
    } catch (e) {
      error.value = e instanceof Outcome ? e.message : errorMessage(e);
      return false;
    } finally {
      busy.value = undefined;
    }
  }

  async function setEnabled(plugin: Plugin, enable: boolean): Promise<void> {
    const title = titleOf(plugin);
    const name = plugin.metadata.name;
    const ok = enable
      ? await confirmed(
          t('plugins.enableHeader'),
          `${t('plugins.enableText', { title, name })} ${t(PLUGIN_TRUST)}`,
          t('plugins.enable'),
        )
      : await confirmed(
          t('plugins.disableHeader'),
          t('plugins.disableText', { title, name }),
          t('plugins.disable'),
          true,
        );
    if (!ok) return;
    await run(plugin.metadata.name, async () => {
      // Answers once the plugin is STARTED, STOPPED or FAILED; the watch shows the phases on the way.
      const after = await client.request<Plugin>('PUT', `${MANAGE}/${plugin.metadata.name}/plugin-state`, {
        body: { enable },
      });
      if (after.status?.phase === 'FAILED') {
        const reason = after.status.conditions?.find((c) => c.type === 'Ready');
        const why = `${reason?.reason ?? 'StartFailed'}: ${reason?.message ?? ''}`;
        throw new Outcome(t('plugins.failedToStart', { title, why }));
      }
      toast.add({
        severity: 'success',
        summary: t(enable ? 'plugins.enabled' : 'plugins.disabled', { title }),
        life: 4000,
      });
    });
  }

  /** Uninstalls, keeping or deleting the plugin's data (the uninstall dialog is the confirmation). */
  function uninstall(plugin: Plugin, data: UninstallData): Promise<boolean> {
    const title = titleOf(plugin);
    return run(plugin.metadata.name, async () => {
      await client.request<Plugin>('DELETE', `${PLUGIN_OBJECTS}/${plugin.metadata.name}`, { query: { data } });
      const what = t(data === 'delete' ? 'plugins.dataDeleted' : 'plugins.dataKept');
      toast.add({ severity: 'success', summary: t('plugins.uninstalled', { title }), detail: what, life: 4000 });
    });
  }

  /** Replaces the plugin's code with the archive's (the upgrade dialog is the confirmation). */
  function upgrade(plugin: Plugin, file: File): Promise<boolean> {
    return run(plugin.metadata.name, async () => {
      const after = await client.request<Plugin>('POST', `${MANAGE}/${plugin.metadata.name}/upgrade`, {
        body: archiveForm(file),
      });
      // A rollback reported since the plugin was shown is this upgrade's: its new code failed to start.
      const failed = after.status?.lastUpgrade;
      if (failed && failed.at !== plugin.status?.lastUpgrade?.at) {
        const running = failed.rolledBackTo.version;
        const summary = t('plugins.upgradeRolledBack', { title: titleOf(after), version: failed.version, running });
        toast.add({ severity: 'error', summary, detail: failed.message, life: 8000 });
        return;
      }
      toast.add({
        severity: 'success',
        summary: t('plugins.upgraded', {
          title: titleOf(after),
          version: after.spec?.version ?? t('plugins.newVersion'),
        }),
        life: 4000,
      });
    });
  }

  /** Installs an archive; the plugin is installed stopped, to be enabled. */
  async function install(file: File): Promise<Plugin | undefined> {
    let installed: Plugin | undefined;
    await run('', async () => {
      installed = await client.request<Plugin>('POST', `${MANAGE}/install`, { body: archiveForm(file) });
      toast.add({
        severity: 'success',
        summary: t('plugins.installed', { title: titleOf(installed), version: installed.spec?.version ?? '' }),
        detail: t('plugins.enableToStart'),
        life: 5000,
      });
    });
    return installed;
  }

  return { busy, error, setEnabled, uninstall, upgrade, install };
}
