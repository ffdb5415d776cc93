import type { ExtensionObject, ResourceRef } from '@svc/client';
import { PLUGIN_GROUP, type PluginPhase, type PluginSpec, type PluginStatus, SERVICE_VERSION } from '@svc/plugin-api';

/**
 * What installing, upgrading or enabling a plugin means, said wherever the console offers it: a plugin is not
 * sandboxed (docs/plugins.md, "Trust").
 */
export const PLUGIN_TRUST =
  "A plugin runs inside svc with all of the server's rights (its settings, files and database), and its pages run " +
  "in every console user's browser: install only plugins you trust.";

/** A Plugin object as the server writes it (its types: @svc/plugin-api). */
export type Plugin = ExtensionObject<PluginSpec, PluginStatus>;

export const PLUGINS: ResourceRef = { group: PLUGIN_GROUP, version: SERVICE_VERSION, plural: 'plugins' };

/** What people call a plugin: its display name, else its name. */
export function titleOf(plugin: Plugin): string {
  return plugin.spec?.displayName || plugin.metadata.name;
}

export function authorOf(plugin: Plugin): string | undefined {
  const author = plugin.spec?.author;
  return typeof author === 'string' ? author : author?.name;
}

/** What the detail page says of a plugin, as `[name, value]` pairs; facts it does not have are left out. */
export function factsOf(p: Plugin): [string, string][] {
  const deps = Object.entries(p.spec?.pluginDependencies ?? {});
  return [
    ['Name', p.metadata.name],
    ['Version', p.spec?.version],
    ['Requires svc', p.spec?.requires],
    ['Author', authorOf(p)],
    ['Entry module', p.spec?.main],
    ['Console UI bundle', p.spec?.ui],
    ['Depends on', deps.length ? deps.map(([n, range]) => `${n} ${range}`).join(', ') : 'No other plugin'],
    ['Enabled', p.spec?.enabled ? 'Yes' : 'No'],
    ['Installed from', p.status?.source === 'archive' ? 'an uploaded archive' : p.status?.source && 'a plugins folder'],
    ['Loaded from', p.status?.loadLocation],
    ['Last started', p.status?.lastStartTime && new Date(p.status.lastStartTime).toLocaleString()],
    ['Installed', p.metadata.creationTimestamp && new Date(p.metadata.creationTimestamp).toLocaleString()],
  ].filter((f): f is [string, string] => typeof f[1] === 'string' && f[1] !== '');
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
