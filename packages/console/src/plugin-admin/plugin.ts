import type { ExtensionObject, ResourceRef } from '@svc/client';
import { PLUGIN_GROUP, type PluginPhase, type PluginSpec, type PluginStatus, SERVICE_VERSION } from '@svc/plugin-api';

/**
 * What installing, upgrading or enabling a plugin means, said wherever the console offers it: a plugin is not
 * sandboxed (docs/plugins.md, "Trust").
 */
export const PLUGIN_TRUST = 'plugins.trust';

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

/**
 * What the detail page says of a plugin, as `[name, value]` pairs; facts it does not have are left out. `say` gives a
 * message key's words (the console's `t`), so this module stays free of the browser's client and is tested in Node.
 */
export function factsOf(p: Plugin, say: (key: string) => string): [string, string][] {
  const deps = Object.entries(p.spec?.pluginDependencies ?? {});
  const source = p.status?.source;
  return [
    ['name', p.metadata.name],
    ['version', p.spec?.version],
    // What this server runs: the spec's version, unless an upgrade is under way (or was rolled back meanwhile).
    ['running', p.status?.phase === 'STARTED' ? p.status.version : undefined],
    ['requires', p.spec?.requires],
    ['author', authorOf(p)],
    ['main', p.spec?.main],
    ['ui', p.spec?.ui],
    [
      'dependsOn',
      deps.length ? deps.map(([n, range]) => `${n} ${range}`).join(', ') : say('plugins.facts.noDependency'),
    ],
    ['enabled', say(p.spec?.enabled ? 'common.yes' : 'common.no')],
    ['source', source && say(source === 'archive' ? 'plugins.facts.fromArchive' : 'plugins.facts.fromFolder')],
    ['loadedFrom', p.status?.loadLocation],
    ['lastStarted', p.status?.lastStartTime && new Date(p.status.lastStartTime).toLocaleString()],
    ['installed', p.metadata.creationTimestamp && new Date(p.metadata.creationTimestamp).toLocaleString()],
  ]
    .filter((f): f is [string, string] => typeof f[1] === 'string' && f[1] !== '')
    .map(([key, value]) => [say(`plugins.facts.${key}`), value]);
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
