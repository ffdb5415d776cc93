import {
  KIND,
  type ModelDefinition,
  PLUGIN_GROUP,
  type PluginCondition,
  type PluginManifest,
  type PluginPhase,
  type PluginSpec,
  type PluginStatus,
  START_REQUEST_ANNOTATION,
  UNINSTALL_DATA_ANNOTATION,
  type UninstallData,
} from '@svc/plugin-api';
import type { DeleteParameter } from '../objects/model-definition.js';

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

/** The typed view of a stored Plugin (plugin-object.ts). */
export type { PluginObject } from './plugin-object.js';
export { pluginSettingModel } from './plugin-settings.js';

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
  kind: KIND.Plugin,
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
          settings: { type: 'object' },
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
