import type { ExtensionObject, ResourceRef } from '@svc/client';

/**
 * What installing, upgrading or enabling a plugin means, said wherever the console offers it: a plugin is not
 * sandboxed (docs/plugins.md, "Trust").
 */
export const PLUGIN_TRUST =
  "A plugin runs inside svc with all of the server's rights (its settings, files and database), and its pages run " +
  "in every console user's browser: install only plugins you trust.";

/** `plugin.svc.run/v1alpha1` Plugin, as the server writes it (packages/server/src/plugins/plugin-model.ts). */
export type PluginPhase = 'RESOLVED' | 'STARTING' | 'STARTED' | 'STOPPING' | 'STOPPED' | 'FAILED';

export interface PluginCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface PluginSpec {
  version: string;
  requires: string;
  main: string;
  enabled: boolean;
  displayName?: string;
  description?: string;
  author?: string | { name?: string; website?: string };
  logo?: string;
  ui?: string;
  pluginDependencies?: Record<string, string>;
}

export interface PluginStatus {
  phase?: PluginPhase;
  conditions?: PluginCondition[];
  lastStartTime?: string;
  loadLocation?: string;
  source?: 'directory' | 'archive';
  /** The store resources of the models it registered since it was installed. */
  models?: string[];
}

/** What an uninstall does with the plugin's data (`DELETE …/plugins/{name}?data=`). */
export type UninstallData = 'keep' | 'delete';

export type Plugin = ExtensionObject<PluginSpec, PluginStatus>;

export interface PluginLogEntry {
  time: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export const PLUGINS: ResourceRef = { group: 'plugin.svc.run', version: 'v1alpha1', plural: 'plugins' };
/** The label the host puts on every object a plugin declares (its role templates among them). */
export const OWNER_LABEL = 'plugin.svc.run/plugin-name';

/** What people call a plugin: its display name, else its name. */
export function titleOf(plugin: Plugin): string {
  return plugin.spec?.displayName || plugin.metadata.name;
}

export function authorOf(plugin: Plugin): string | undefined {
  const author = plugin.spec?.author;
  return typeof author === 'string' ? author : author?.name;
}

/** The Tag severity of a phase; the Tag always shows the phase's name too, so colour is never the only sign. */
export function phaseSeverity(phase: PluginPhase | undefined): 'success' | 'danger' | 'info' | 'secondary' | 'warn' {
  switch (phase) {
    case 'STARTED':
      return 'success';
    case 'FAILED':
      return 'danger';
    case 'STARTING':
    case 'STOPPING':
      return 'info';
    case 'RESOLVED':
      return 'warn';
    default:
      return 'secondary';
  }
}

/** Being deleted: the uninstall finalizer is stopping it and removing its code. */
export function isUninstalling(plugin: Plugin): boolean {
  return Boolean(plugin.metadata.deletionTimestamp);
}
