/**
 * Who contributed a model, a route or a reconciler: the service itself (`core`) or a plugin (`plugin:<name>`). One
 * spelling everywhere, so "remove everything plugin x added" and "which plugin serves this" read the same value.
 */
export type Owner = 'core' | `plugin:${string}`;

export const CORE: Owner = 'core';

export function pluginOwner(plugin: string): Owner {
  return `plugin:${plugin}`;
}

/** The plugin behind an owner; undefined for the service's own. */
export function pluginOf(owner: Owner): string | undefined {
  return owner.startsWith('plugin:') ? owner.slice('plugin:'.length) : undefined;
}
