import type { FailedUpgrade, PluginLogEntry } from '@svc/plugin-api';
import type { Logger as PinoLogger } from 'pino';
import type { ControllerManager } from '../controllers/controller-manager.js';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import type { Actor } from '../registry/admission.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { KeyedQueue } from '../util/keyed-queue.js';
import { selectionOf } from '../watch/selection.js';
import { CodePlacement } from './code-placement.js';
import type { InstalledCode } from './installed-code.js';
import { PendingUpgrades } from './pending-upgrades.js';
import { admitPluginWrite, type MayRunPluginCode } from './plugin-admission.js';
import { pluginLogger } from './plugin-context.js';
import { waitingOn } from './plugin-decision.js';
import { discoverPlugins } from './plugin-discovery.js';
import type { PluginHost, PluginRecord } from './plugin-host.js';
import { PluginManagement } from './plugin-management.js';
import { pluginModel, UNINSTALL_DATA_PARAMETER } from './plugin-model.js';
import type { PluginObject } from './plugin-object.js';
import { PluginObjects } from './plugin-objects.js';
import { type PluginArchives, PluginReconciler } from './plugin-reconciler.js';
import { ownReport, type ReplicaIdentity } from './plugin-status.js';
import type { WaitOutcome } from './plugin-status-wait.js';

export type { PluginArchives } from './plugin-reconciler.js';

/** `GET …/plugins/{name}/logs`. */
export interface PluginLogReport {
  name: string;
  phase?: string;
  reason?: string;
  version?: string;
  lastUpgrade?: FailedUpgrade;
  entries: PluginLogEntry[];
}

export interface PluginLifecycleDeps {
  host: PluginHost;
  registry: ModelRegistry;
  objects: ObjectService;
  controllers: ControllerManager;
  installed: InstalledCode;
  logger: PinoLogger;
  hostVersion: string;
  /** Who may turn a plugin on through its object: a super administrator (plugin-admission.ts). */
  mayRunCode: MayRunPluginCode;
  /** Set when several servers share the store: each reports its own part of a Plugin's status. */
  replica?: ReplicaIdentity;
  /**
   * Where uploaded archives are kept for every replica (a shared store): the replica that installs or upgrades a
   * plugin stores its archive there, and the others fetch it when the Plugin names an archive they do not hold.
   */
  archives?: PluginArchives;
  /** How long `plugin-state` and upgrade wait for status (default: twice the start time limit, and 30 s). */
  waitLimitMs?: number;
}

/**
 * The plugins feature, composed: the Plugin model, the one reconciler that drives plugins (plugin-reconciler.ts), the
 * one code placement (code-placement.ts) and the management API's operations (plugin-management.ts), which write the
 * desired state and wait on status. Everything that acts on plugins runs one operation at a time.
 */
export class PluginLifecycle {
  private plugins!: PluginObjects;
  private reconciler!: PluginReconciler;
  private management!: PluginManagement;
  private readonly placement: CodePlacement;
  private readonly queue = new KeyedQueue();
  private readonly oneAtATime = <T>(operation: () => Promise<T>): Promise<T> => this.queue.run('plugins', operation);

  constructor(private readonly deps: PluginLifecycleDeps) {
    const { host, installed, hostVersion } = deps;
    this.placement = new CodePlacement({ host, installed, hostVersion });
  }

  get model(): ServedModel {
    return this.plugins.served;
  }

  /**
   * Registers the Plugin model, finds the plugins' code and records each as a Plugin object, reconciles every plugin
   * once in dependency order (so they run before the server serves), then follows Plugin objects.
   */
  async boot(directories: string[]): Promise<void> {
    const { registry, objects, host, installed, logger, replica, archives } = this.deps;
    const model = normalizeModelDefinition(pluginModel, { kind: 'system' });
    const served = await registry.register({ ...model, deleteParameters: [UNINSTALL_DATA_PARAMETER] }, 'core');
    objects.admission.add(served.model.resource, (request) =>
      admitPluginWrite(request, (name) => host.runningDependents(name), this.deps.mayRunCode),
    );
    // Made here, not in the constructor: they need the Plugin model, registered just above.
    const plugins = new PluginObjects(objects, served);
    const { oneAtATime, placement } = this;
    const upgrades = new PendingUpgrades();
    const reconciler = new PluginReconciler({ ...this.deps, plugins, placement, oneAtATime, upgrades });
    const waitLimitMs = this.deps.waitLimitMs ?? 2 * host.timeoutMs + 30_000;
    this.plugins = plugins;
    this.reconciler = reconciler;
    this.management = new PluginManagement({
      ...{ host, plugins, objects, placement, reconciler, oneAtATime, waitLimitMs, archives, upgrades },
      replicaId: replica?.id,
    });

    const dropped = await discoverPlugins(directories, { host, installed, placement, logger });
    for (const record of host.list()) await this.recordFound(record, dropped.has(record.name));
    for (const name of host.startOrder()) await reconciler.reconcile(name);
    // Plugin objects whose code is not on this server get a status saying so (names from the index: no reads).
    for (const name of served.index.names()) if (!host.get(name)) await reconciler.reconcile(name);
    this.deps.controllers.run(
      'core',
      {
        name: 'plugin-lifecycle',
        served,
        selection: selectionOf(served.index, [], []),
        workers: 1,
        reconcile: ({ name }) => reconciler.reconcile(name),
        related: (name) => waitingOn(name, host.list(), host.isRunning),
      },
      pluginLogger(logger, 'core'),
      // Each server runs its own plugins: every replica follows the Plugin objects.
      { everyReplica: true },
    );
  }

  get(name: string): Promise<PluginObject> {
    return this.plugins.get(name);
  }

  install(archive: Buffer): Promise<PluginObject> {
    return this.management.install(archive);
  }

  upgrade(name: string, archive: Buffer): Promise<WaitOutcome> {
    return this.management.upgrade(name, archive);
  }

  setEnabled(name: string, enabled: boolean, actor: Actor, wait: boolean): Promise<WaitOutcome> {
    return this.management.setEnabled(name, enabled, actor, wait);
  }

  /**
   * What this server logged of the plugin's latest start, with its phase (and why, when it FAILED) and version as it
   * reports them, and the latest upgrade rolled back.
   */
  async logs(name: string): Promise<PluginLogReport> {
    const status = (await this.plugins.get(name)).status;
    const own = ownReport(status, this.deps.replica?.id);
    const reason = own?.phase === 'FAILED' ? own.message : undefined;
    return {
      name,
      phase: own?.phase,
      reason,
      version: own?.version,
      ...(status?.lastUpgrade ? { lastUpgrade: status.lastUpgrade } : {}),
      entries: this.deps.host.logs.entries(name),
    };
  }

  /**
   * Boot: the Plugin object of code found, created with its first status (a folder, or an archive dropped into
   * SVC_PLUGINS_DIR, runs at first sight; an upload waits to be enabled), or its spec brought in line with the code.
   * Not when replicas share archives and the object names another archive than this server holds: the object is
   * then the newer, and the reconciler fetches its code.
   */
  private async recordFound(record: PluginRecord, dropped: boolean): Promise<void> {
    const existing = await this.plugins.fetch(record.name);
    if (!existing) {
      const enabled = record.source === 'directory' || dropped;
      await this.plugins.create(record, enabled, this.reconciler.firstStatus(record, enabled));
      return;
    }
    const wanted = existing.spec.archiveDigest;
    const stale = this.deps.archives && !dropped && record.source === 'archive' && wanted && wanted !== record.digest;
    if (!stale) await this.plugins.updateSpec(existing, record);
  }
}
