import path from 'node:path';
import { PLUGIN_ARCHIVES_RECORDS } from '@svc/plugin-api';
import { httpRef } from '../api/module.js';
import { controllersRef } from '../controllers/module.js';
import { defineModule, ref } from '../kernel/module.js';
import { loggerRef, optionsRef, settingsRef } from '../kernel/root.js';
import { accessRef, rolesRef } from '../rbac/module.js';
import type { Actor } from '../registry/admission.js';
import { registryRef } from '../registry/module.js';
import { storeRef } from '../store/module.js';
import { HOST_VERSION } from '../version.js';
import { pluginConsoleRoutes } from './console-routes.js';
import { InstalledCode } from './installed-code.js';
import { PluginHost } from './plugin-host.js';
import { type PluginArchives, PluginLifecycle } from './plugin-lifecycle.js';
import { PluginUis } from './plugin-ui.js';
import { pluginUiRoutes } from './ui-routes.js';

export interface PluginsOptions {
  /** How long a plugin's start may take before it is FAILED (default 30 s). */
  pluginStartTimeoutMs?: number;
}

export interface Plugins {
  host: PluginHost;
  /** Plugin objects and the install/upgrade/enable operations on them. */
  lifecycle: PluginLifecycle;
}

export const pluginsRef = ref<Plugins>('plugins');

/**
 * The plugin host and the lifecycle that drives it from Plugin objects: at boot, the plugins found are installed and
 * started (last in the boot phase: roles, users and the Post model exist by then); their management routes and UI
 * files are served. A plugin's code runs with everything this process has, so putting it to work is a super
 * administrator's act. At a stop the plugins stop; their stored objects stay.
 */
export const pluginsModule = defineModule({
  name: 'plugins',
  phase: 'boot',
  needs: {
    store: storeRef,
    registry: registryRef,
    controllers: controllersRef,
    http: httpRef,
    roles: rolesRef,
    access: accessRef,
    settings: settingsRef,
    logger: loggerRef,
    options: optionsRef<PluginsOptions>(),
  },
  provides: pluginsRef,
  async start(
    { store: { store, lease, whileLeading }, registry, controllers, http, roles, access, settings, logger, options },
    lifecycle,
  ) {
    const { feed } = registry;
    const host = new PluginHost({
      // A custom route's handler learns who calls and what roles they hold, never their credentials.
      callerRoles: (caller) => [...roles.service.expandFor(caller).roleNames].sort(),
      registry: registry.registry,
      objects: registry.objects,
      router: http.router,
      logger,
      startTimeoutMs: options.pluginStartTimeoutMs,
      controllers,
      replicas: feed ? { leads: () => lease.held, catchUp: () => feed.sync(), whileLeading } : undefined,
    });
    lifecycle.onStop('services', () => host.shutdown());
    registry.pluginGroups.provide((plugin) => host.ownedGroups(plugin));
    host.onRunningChange((record) => {
      if (record.manifest.spec.ui) access.pluginUisChanged();
    });
    const mayRunCode = (actor: Actor) => actor.kind === 'user' && roles.service.isSuper(actor.principal);
    // Replicas share uploaded archives through the store's secret records (outside the history: no watch carries them).
    const archives: PluginArchives | undefined = store.shared
      ? {
          put: (name, archive) => store.secrets.put(PLUGIN_ARCHIVES_RECORDS, name, archive),
          get: (name) => store.secrets.get(PLUGIN_ARCHIVES_RECORDS, name),
          delete: async (name) => void (await store.secrets.delete(PLUGIN_ARCHIVES_RECORDS, name)),
        }
      : undefined;
    const plugins = new PluginLifecycle({
      host,
      mayRunCode,
      registry: registry.registry,
      objects: registry.objects,
      controllers,
      installed: new InstalledCode(path.join(settings.dataDir, 'plugins')),
      logger,
      hostVersion: HOST_VERSION,
      replica: store.shared ? { id: settings.replicaId, leads: () => lease.held } : undefined,
      archives,
    });
    await plugins.boot(settings.pluginsDirs);
    http.router.add(pluginConsoleRoutes({ lifecycle: plugins, objects: registry.objects, mayRunCode }));
    http.router.add(pluginUiRoutes(new PluginUis(host)));
    return { host, lifecycle: plugins };
  },
});
