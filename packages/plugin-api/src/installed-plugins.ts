/**
 * A plugin as svc describes it: its `plugin.yaml`, and the `plugin.svc.run/v1alpha1` Plugin object the host keeps for
 * it (the manifest in spec, plus `enabled`; the lifecycle in status), as the server writes it and clients read it.
 */
import type { JsonSchema } from './models.js';
import type { ExtensionObject } from './objects.js';
import type { KIND, PLUGIN_API_VERSION } from './vocabulary.js';

/** `plugin.yaml` (docs/api.md "Plugins"). */
export interface PluginManifest {
  apiVersion: typeof PLUGIN_API_VERSION;
  kind: typeof KIND.Plugin;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    version: string;
    /** A semver range of the host's version. */
    requires: string;
    /** The ESM entry. */
    main: string;
    displayName?: string;
    description?: string;
    author?: { name?: string; website?: string } | string;
    logo?: string;
    /** The plugin UI's ESM entry, inside a folder of the plugin served publicly. */
    ui?: string;
    /** The plugin UI's stylesheet, in the same folder as `ui`. */
    uiStyle?: string;
    pluginDependencies?: Record<string, string>;
    /**
     * The plugin's settings: a JSON Schema (draft 2020-12) of `type: object` whose properties are the settings. The
     * console renders a form from it; the values are a PluginSetting object named after the plugin.
     */
    settings?: JsonSchema;
  };
}

/** `plugin.svc.run/v1alpha1` PluginSetting, named after its plugin: the settings values in `spec`. */
export type PluginSettingObject = ExtensionObject<Record<string, unknown>> & { spec: Record<string, unknown> };

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

export type PluginSpec = PluginManifest['spec'] & {
  /** Desired state: the reconciler starts the plugin when true and stops it when false. */
  enabled: boolean;
  /**
   * The code wanted, for a plugin installed from an archive: the archive's sha256. A server whose code differs fetches
   * this archive from the store its replicas share; `status.archiveDigest` says which code a server holds.
   */
  archiveDigest?: string;
};

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
  /** The version of the code in place on this server (its `plugin.yaml`): the one that runs when STARTED. */
  version?: string;
  /**
   * The latest upgrade whose start failed and was rolled back: the previous code was put back and started again, and
   * spec names it again. Cleared once other code than the code put back starts (a later upgrade that works).
   */
  lastUpgrade?: FailedUpgrade;
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
  /** The version of the code in place on that server. */
  version?: string;
}

/** An upgrade that failed to start and was rolled back (`status.lastUpgrade`). */
export interface FailedUpgrade {
  /** The version and archive the upgrade brought, which failed to start. */
  version: string;
  archiveDigest?: string;
  /** Always `UpgradeRolledBack`: the previous code was put back. */
  reason: 'UpgradeRolledBack';
  /** Why the new code failed to start (its error message). */
  message: string;
  /** When the rollback was made. */
  at: string;
  /** The code put back in its place. */
  rolledBackTo: { version: string; archiveDigest?: string };
}

/** What an uninstall does with the plugin's data (`DELETE …/plugins/{name}?data=keep|delete`). */
export type UninstallData = 'keep' | 'delete';

/** One line of what a plugin logged during its latest start attempt (`GET …/plugins/{name}/logs`). */
export interface PluginLogEntry {
  time: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}
