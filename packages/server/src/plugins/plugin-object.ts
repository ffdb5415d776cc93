import { type ExtensionObject, KIND, PLUGIN_API_VERSION, type PluginSpec, type PluginStatus } from '@svc/plugin-api';

/** A Plugin as stored: it always has a spec. */
export type PluginObject = ExtensionObject<PluginSpec, PluginStatus> & { spec: PluginSpec };

/**
 * Reads an object the object service hands back (a stored Plugin, or one being admitted) as a Plugin. The model's
 * schema already holds every write to this shape, so this only fails when a caller hands it something else; checking
 * keeps the typed view honest where a cast would hide such a mistake. Status is written by svc alone (admission
 * refuses everyone else), so only its being a mapping is checked.
 */
export function readPluginObject(value: unknown): PluginObject {
  if (isPluginObject(value)) return value;
  throw new Error(`not a Plugin object: ${pluginObjectProblem(value)}`);
}

/** What keeps `value` from being read as a Plugin object, or undefined when nothing does. */
export function pluginObjectProblem(value: unknown): string | undefined {
  if (!isMapping(value)) return 'it is not a mapping';
  if (value.apiVersion !== PLUGIN_API_VERSION || value.kind !== KIND.Plugin) {
    return `it is a ${String(value.kind)} of ${String(value.apiVersion)}`;
  }
  if (!isMapping(value.metadata) || typeof value.metadata.name !== 'string') return 'metadata.name is missing';
  const spec = value.spec;
  if (!isMapping(spec)) return 'spec is missing';
  if (typeof spec.enabled !== 'boolean') return 'spec.enabled is not a boolean';
  for (const field of ['version', 'requires', 'main'] as const) {
    if (typeof spec[field] !== 'string') return `spec.${field} is not a string`;
  }
  if (value.status !== undefined && !isMapping(value.status)) return 'status is not a mapping';
  return undefined;
}

function isPluginObject(value: unknown): value is PluginObject {
  return pluginObjectProblem(value) === undefined;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
