import type { ModelDefinition } from '@svc/plugin-api';
import type { DeleteParameter } from '../objects/model-definition.js';
import type { PluginManifest } from './manifest.js';

/** Where a plugin's lifecycle stands (Halo's phases, trimmed to the ones svc passes through). */
export type PluginPhase = 'RESOLVED' | 'STARTING' | 'STARTED' | 'STOPPING' | 'STOPPED' | 'FAILED';

export interface PluginCondition {
  type: 'Ready';
  status: 'True' | 'False' | 'Unknown';
  /** CamelCase, machine-readable: Started, Stopped, Disabled, StartFailed, DependenciesNotMet, CodeMissing… */
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface PluginSpec extends Omit<PluginManifest['spec'], 'main'> {
  main: string;
  /** Desired state: the reconciler starts the plugin when true and stops it when false. */
  enabled: boolean;
  /**
   * The code wanted, for a plugin installed from an archive: the archive's sha256. A server whose code differs fetches
   * this archive from the store its replicas share; `status.archiveDigest` says which code a server holds.
   */
  archiveDigest?: string;
}

export interface PluginStatus {
  phase: PluginPhase;
  conditions: PluginCondition[];
  lastStartTime?: string;
  /** The folder the code is loaded from on this server. */
  loadLocation?: string;
  /** `directory`: a folder of SVC_PLUGINS_DIR, loaded in place; `archive`: installed from an archive into the data folder. */
  source?: 'directory' | 'archive';
  /** The archive whose code is in place on this server (what a start runs); none for a folder. */
  archiveDigest?: string;
  /**
   * The store resources (`<group>/<plural>`) of every model the plugin has registered since it was installed: whose
   * objects an uninstall that deletes its data removes, even while it is not running.
   */
  models?: string[];
  /**
   * Replicas on a shared store: what each server runs, by its replica id, each written by that server alone. The fields
   * above are then the leader's.
   */
  replicas?: ReplicaReport[];
}

/** One replica's report of a plugin. */
export interface ReplicaReport {
  name: string;
  phase: PluginPhase;
  /** Why it does not run, when it does not (a failure, the code missing on that server). */
  reason?: string;
  message?: string;
  /** The archive whose code is in place on that server. */
  archiveDigest?: string;
}

export const PLUGIN_GROUP = 'plugin.svc.run';
export const PLUGIN_API_VERSION = `${PLUGIN_GROUP}/v1alpha1`;
/** Held by every Plugin object, so deleting one first stops the plugin and removes its code (an uninstall). */
export const UNINSTALL_FINALIZER = 'plugin.svc.run/uninstall';
/** What an uninstall does with the plugin's data, written by the DELETE that began it (`?data=keep|delete`). */
export const UNINSTALL_DATA_ANNOTATION = 'plugin.svc.run/uninstall-data';
export type UninstallData = 'keep' | 'delete';
/**
 * `DELETE …/plugins/{name}?data=keep|delete`: keep (the default, which loses nothing) leaves the objects of its models
 * and those it declared stored, for a later install to find; delete removes them.
 */
export const UNINSTALL_DATA_PARAMETER: DeleteParameter = {
  name: 'data',
  annotation: UNINSTALL_DATA_ANNOTATION,
  values: ['keep', 'delete'],
  default: 'keep',
  description:
    'What the uninstall does with the plugin’s data: keep (the default) leaves the objects of its models and those it ' +
    'declared stored; delete removes them.',
};

/** The choice recorded on a Plugin being deleted; keep when none was (nothing is lost by default). */
export function uninstallDataOf(object: { metadata: { annotations?: Record<string, string> } }): UninstallData {
  return object.metadata.annotations?.[UNINSTALL_DATA_ANNOTATION] === 'delete' ? 'delete' : 'keep';
}

/**
 * Asks for another start of a plugin whose start failed (any new value; `PUT …/plugin-state` with `"enable": true`
 * writes the time). Part of the desired state: every server whose start of the plugin failed tries again once.
 */
export const START_REQUEST_ANNOTATION = 'plugin.svc.run/start-requested';
/** Label on every object a plugin declares in `extensions/`: its owner (objects/ownership.ts). */
export { OWNER_LABEL as PLUGIN_NAME_LABEL } from '../objects/ownership.js';
/** The typed view of a stored Plugin (plugin-object.ts). */
export type { PluginObject } from './plugin-object.js';

const semverString = { type: 'string', minLength: 1, maxLength: 256 };
/** A relative path without `..` segments, ending in `ext` (admission says more: manifest.ts, plugin-ui.ts). */
const pathInside = (ext: string) => ({
  type: 'string',
  minLength: 1,
  maxLength: 1024,
  pattern: `^(?![/\\\\])(?!(.*[/\\\\])?\\.\\.([/\\\\]|$)).+\\.${ext}$`,
});

/** `plugin.svc.run/v1alpha1` Plugin: the manifest in spec (plus `enabled`), the lifecycle in status. */
export const pluginModel: ModelDefinition = {
  group: PLUGIN_GROUP,
  version: 'v1alpha1',
  kind: 'Plugin',
  plural: 'plugins',
  singular: 'plugin',
  statusSubresource: true,
  schema: {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: {
        type: 'object',
        required: ['version', 'requires', 'main', 'enabled'],
        properties: {
          version: semverString,
          requires: semverString,
          main: { type: 'string', minLength: 1, maxLength: 1024 },
          enabled: { type: 'boolean' },
          displayName: { type: 'string', maxLength: 256 },
          description: { type: 'string', maxLength: 4096 },
          author: {
            anyOf: [
              { type: 'string', maxLength: 256 },
              { type: 'object', properties: { name: { type: 'string' }, website: { type: 'string' } } },
            ],
          },
          logo: { type: 'string', maxLength: 4096 },
          ui: pathInside('m?js'),
          uiStyle: pathInside('css'),
          pluginDependencies: { type: 'object', additionalProperties: semverString },
          archiveDigest: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
      },
      status: { type: 'object' },
    },
  },
  indexes: [{ name: 'spec.enabled' }, { name: 'status.phase' }],
};

/** The spec a manifest gives, with the desired state (and the archive the code comes from, if one). */
export function specOf(manifest: PluginManifest, enabled: boolean, archiveDigest?: string): PluginSpec {
  return { ...structuredClone(manifest.spec), enabled, ...(archiveDigest ? { archiveDigest } : {}) };
}

/** The start request a Plugin carries ('' when none was made). */
export function startRequestOf(object: { metadata: { annotations?: Record<string, string> } }): string {
  return object.metadata.annotations?.[START_REQUEST_ANNOTATION] ?? '';
}

/** The status after a transition; the Ready condition keeps its transition time while its status stays the same. */
export function nextStatus(
  previous: PluginStatus | undefined,
  phase: PluginPhase,
  ready: { status: PluginCondition['status']; reason: string; message: string },
  extra: Partial<PluginStatus> = {},
): PluginStatus {
  const before = previous?.conditions?.find((c) => c.type === 'Ready');
  const lastTransitionTime =
    before && before.status === ready.status ? before.lastTransitionTime : new Date().toISOString();
  return {
    ...previous,
    ...extra,
    phase,
    conditions: [{ type: 'Ready', ...ready, lastTransitionTime }],
  };
}
