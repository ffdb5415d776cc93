import { alreadyExists, badRequest } from '@svc/plugin-api';
import type { Logger as PinoLogger } from 'pino';
import type { ControllerManager } from '../controllers/controller-manager.js';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import type { Actor } from '../registry/admission.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { selectionOf } from '../watch/selection.js';
import type { InstalledCode } from './installed-code.js';
import {
  admitPluginWrite,
  checkDependenciesInstalled,
  checkUpgrade,
  type MayRunPluginCode,
} from './plugin-admission.js';
import { pluginLogger } from './plugin-context.js';
import { deleteServedData, purgeModels } from './plugin-data.js';
import { discoverPlugins } from './plugin-discovery.js';
import type { PluginHost, PluginRecord } from './plugin-host.js';
import {
  ARCHIVE_DIGEST_ANNOTATION,
  type PluginStatus,
  pluginModel,
  UNINSTALL_DATA_PARAMETER,
  UNINSTALL_FINALIZER,
  uninstallDataOf,
} from './plugin-model.js';
import type { PluginObject } from './plugin-object.js';
import { PluginObjects } from './plugin-objects.js';
import {
  codeMissingStatus,
  type ReplicaIdentity,
  replicaStatus,
  startingStatus,
  statusOf,
  writeStatus,
} from './plugin-status.js';
import { planSync, waitingOn } from './plugin-sync.js';
import { withStagedArchive } from './plugin-upload.js';

export { ARCHIVE_DIGEST_ANNOTATION } from './plugin-model.js';

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
   * plugin stores its archive there, and the others fetch it when the Plugin's archive digest is not the code they run.
   */
  archives?: PluginArchives;
}

/** Uploaded plugin archives by plugin name, in the store the replicas share. */
export interface PluginArchives {
  put(name: string, archive: Buffer): Promise<void>;
  get(name: string): Promise<Buffer | undefined>;
  delete(name: string): Promise<void>;
}

/**
 * The plugin lifecycle controller. Each installed plugin is a Plugin object; `spec.enabled` is the desired state and
 * `status` records what this server runs. `sync` is level-based (it compares the object with the host, asks
 * plugin-sync.ts what to do, acts and records the outcome), runs one at a time, and is called by the reconciler on
 * every change of a Plugin object, at boot, and by the management API when a caller wants to wait for the outcome.
 */
export class PluginLifecycle {
  private plugins!: PluginObjects;
  private tail: Promise<unknown> = Promise.resolve();
  /** The archive digest of the code this server runs, per plugin installed from an archive (replicas only). */
  private readonly codeDigests = new Map<string, string>();

  constructor(private readonly deps: PluginLifecycleDeps) {}

  get model(): ServedModel {
    return this.plugins.served;
  }

  /** Registers the Plugin model, installs, resolves and starts what is found, then follows Plugin objects. */
  async boot(directories: string[]): Promise<void> {
    const { registry, objects, host, installed, logger, hostVersion } = this.deps;
    const model = normalizeModelDefinition(pluginModel, { kind: 'system' });
    const served = await registry.register({ ...model, deleteParameters: [UNINSTALL_DATA_PARAMETER] }, 'core');
    this.plugins = new PluginObjects(objects, served);
    objects.admission.add(served.model.resource, (request) =>
      admitPluginWrite(request, (name) => host.runningDependents(name), this.deps.mayRunCode),
    );
    await discoverPlugins(directories, { host, installed, plugins: this.plugins, logger, hostVersion });
    for (const record of host.list()) await this.plugins.ensure(record);
    for (const name of host.startOrder()) await this.sync(name);
    // Plugin objects whose code is not on this server still get a status saying so (names from the index: no reads).
    for (const name of served.index.names()) {
      if (!host.get(name)) await this.sync(name);
    }
    this.deps.controllers.run(
      'core',
      {
        name: 'plugin-lifecycle',
        served,
        selection: selectionOf(served.index, [], []),
        workers: 1,
        reconcile: async ({ name }) => void (await this.sync(name)),
      },
      pluginLogger(logger, 'core'),
      // Each server runs its own plugins: every replica follows the Plugin objects.
      { everyReplica: true },
    );
  }

  /** Brings plugin `name` to its desired state and returns its object (undefined once uninstalled). */
  sync(name: string, options: { retry?: boolean } = {}): Promise<PluginObject | undefined> {
    return this.exclusive(() => this.syncNow(name, options));
  }

  get(name: string): Promise<PluginObject> {
    return this.plugins.get(name);
  }

  /** Installs an uploaded archive: checked, unpacked, recorded as a Plugin object; not started. */
  install(archive: Buffer): Promise<PluginObject> {
    const { host, installed, hostVersion } = this.deps;
    return withStagedArchive(installed, hostVersion, archive, (staged, manifest) => {
      const name = manifest.metadata.name;
      return this.exclusive(async () => {
        if (host.get(name) || (await this.plugins.fetch(name))) {
          throw alreadyExists(`plugin "${name}" is already installed; upgrade it with POST …/plugins/${name}/upgrade`);
        }
        checkDependenciesInstalled(host, manifest);
        const record = await host.resolve(await installed.place(name, staged), 'archive');
        await this.share(name, archive, staged.digest);
        await this.plugins.ensure(record, { digest: staged.digest });
        return (await this.syncNow(name, {}))!;
      });
    });
  }

  /** Replaces a plugin's code with an uploaded archive and restarts it if it should run; its data stays. */
  upgrade(name: string, archive: Buffer): Promise<PluginObject> {
    const { host, installed, hostVersion } = this.deps;
    return withStagedArchive(installed, hostVersion, archive, async (staged, manifest) => {
      if (manifest.metadata.name !== name) {
        throw badRequest(`the archive holds plugin "${manifest.metadata.name}", not "${name}"`);
      }
      return this.exclusive(async () => {
        await this.plugins.get(name);
        checkUpgrade(host, name, manifest);
        const record = host.get(name);
        if (record && record.phase !== 'STOPPED') await host.stop(name, { restarting: true });
        const upgraded = await host.resolve(await installed.place(name, staged), 'archive');
        await this.share(name, archive, staged.digest);
        await this.plugins.ensure(upgraded, { digest: staged.digest });
        return (await this.syncNow(name, { retry: true }))!;
      });
    });
  }

  /** Sets `spec.enabled` (an ordinary update, checked by admission) and, unless `wait` is false, waits for the result. */
  async setEnabled(name: string, enabled: boolean, actor: Actor, wait: boolean): Promise<PluginObject> {
    const object = await this.plugins.get(name);
    if (object.spec.enabled !== enabled) await this.plugins.setEnabled(name, enabled, actor);
    const outcome = this.sync(name, { retry: enabled });
    if (!wait) {
      outcome.catch((error: unknown) =>
        this.deps.logger.error({ plugin: name, err: error }, 'plugin state change failed'),
      );
      return this.get(name);
    }
    return (await outcome) ?? this.get(name);
  }

  /** Keeps an uploaded archive where the other replicas find it, before the Plugin object that names it is written. */
  private async share(name: string, archive: Buffer, digest: string): Promise<void> {
    if (!this.deps.archives) return;
    await this.deps.archives.put(name, archive);
    this.codeDigests.set(name, digest);
  }

  /**
   * Replicas: when the Plugin names an archive (by digest) that is not the code this server runs, fetches it from the
   * store and puts it in place (stopping the old code first), so every replica runs what was installed through any.
   * Answers whether the code changed (then the plugin must be started again if it should run).
   */
  private async fetchCode(object: PluginObject | undefined): Promise<boolean> {
    const { archives, host, installed, hostVersion } = this.deps;
    const digest = object?.metadata.annotations?.[ARCHIVE_DIGEST_ANNOTATION];
    if (!archives || !object || !digest || object.metadata.deletionTimestamp) return false;
    const name = object.metadata.name;
    if (this.codeDigests.get(name) === digest) return false;
    const archive = await archives.get(name);
    if (!archive) return false;
    const placed = await withStagedArchive(installed, hostVersion, archive, async (staged) => {
      // Staging digests the archive: the store may already hold a newer upload than this Plugin names (an upgrade
      // under way), and only the one it names is put in place.
      if (staged.digest !== digest) return false;
      if (host.get(name)?.phase === 'STARTED') await host.stop(name, { restarting: true });
      await host.resolve(await installed.place(name, staged), 'archive');
      return true;
    });
    if (!placed) return false;
    this.codeDigests.set(name, digest);
    this.deps.logger.info({ plugin: name, digest }, 'fetched the plugin archive another replica installed');
    return true;
  }

  private async syncNow(name: string, { retry = false }: { retry?: boolean }): Promise<PluginObject | undefined> {
    const { host } = this.deps;
    const desired = await this.plugins.fetch(name);
    const fetched = await this.fetchCode(desired);
    const plan = planSync(desired, host.get(name), retry || fetched);
    switch (plan.step) {
      case 'none':
        return undefined;
      case 'forget':
        await this.removeCode(plan.record, { restarting: true });
        return undefined;
      case 'uninstall':
        return this.uninstall(plan.object, plan.record);
      case 'report-code-missing':
        return this.report(plan.object, (previous) => codeMissingStatus(name, previous));
    }
    const { object, record } = plan;
    let current = object;
    if (plan.step === 'start') {
      current = await this.report(object, startingStatus);
      await host.start(name);
      if (record.phase === 'STARTED') this.retryWaitingDependents(name);
    } else if (plan.step === 'stop') {
      await host.stop(name);
    }
    return this.report(current, (previous) => statusOf(record, object.spec.enabled, previous));
  }

  /** Records what this server runs, as its own entry beside the other replicas' when the store is shared. */
  private report(object: PluginObject, make: (previous: PluginStatus | undefined) => PluginStatus) {
    const { replica } = this.deps;
    return writeStatus(this.plugins, object, (previous) =>
      replica ? replicaStatus(previous, make(previous), replica) : make(previous),
    );
  }

  /**
   * The finalizer's work: stop the plugin, remove its code (if installed from an archive), let the object go. With
   * `?data=delete` its data goes too: what it owns is deleted while it still runs (its controllers let go of their
   * finalizers), what is left of its models once it has stopped.
   */
  private async uninstall(object: PluginObject, record: PluginRecord | undefined): Promise<undefined> {
    const name = object.metadata.name;
    const data = uninstallDataOf(object);
    const logger = pluginLogger(this.deps.logger, name);
    if (data === 'delete') await deleteServedData(this.deps, name, logger);
    if (record) await this.removeCode(record);
    if (data === 'delete') {
      await purgeModels(this.deps, [...new Set([...(object.status?.models ?? []), ...(record?.models ?? [])])], logger);
    }
    this.codeDigests.delete(name);
    await this.deps.archives?.delete(name);
    if (object.metadata.finalizers?.includes(UNINSTALL_FINALIZER)) await this.plugins.releaseUninstallFinalizer(name);
    this.deps.logger.info(
      { plugin: name, data },
      `plugin uninstalled, its data ${data === 'delete' ? 'deleted' : 'kept'}`,
    );
    return undefined;
  }

  /** Stops a plugin, removes its code if it was installed from an archive, and drops it from the host. */
  private async removeCode(record: PluginRecord, stop: { restarting?: boolean } = {}): Promise<void> {
    await this.deps.host.stop(record.name, stop);
    if (record.source === 'archive') await this.deps.installed.remove(record.name);
    this.deps.host.forget(record.name);
  }

  /** Plugins that failed only because `name` was not running get another try now that it is. */
  private retryWaitingDependents(name: string): void {
    for (const waiting of waitingOn(name, this.deps.host.list())) {
      void this.sync(waiting, { retry: true }).catch((error: unknown) =>
        this.deps.logger.error({ plugin: waiting, err: error }, 'starting a waiting plugin failed'),
      );
    }
  }

  /** Lifecycle operations run one at a time: dependency checks and folder swaps never interleave. */
  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.tail.then(operation);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
