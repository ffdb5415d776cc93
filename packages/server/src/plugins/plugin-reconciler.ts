import { type FailedUpgrade, type PluginStatus, UNINSTALL_FINALIZER } from '@svc/plugin-api';
import type { Logger as PinoLogger } from 'pino';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { CodePlacement } from './code-placement.js';
import type { InstalledCode } from './installed-code.js';
import type { PendingUpgrade, PendingUpgrades } from './pending-upgrades.js';
import { pluginLogger } from './plugin-context.js';
import { deleteServedData, purgeModels } from './plugin-data.js';
import { decide, type PluginStep, restingPhase } from './plugin-decision.js';
import type { PluginHost, PluginRecord } from './plugin-host.js';
import { startRequestOf, uninstallDataOf } from './plugin-model.js';
import type { PluginObject } from './plugin-object.js';
import type { PluginObjects } from './plugin-objects.js';
import {
  codeMissingStatus,
  ownReport,
  type ReplicaIdentity,
  type ReportedState,
  startingStatus,
  statusOf,
  withOwnReport,
  writeStatus,
} from './plugin-status.js';

/** Uploaded plugin archives by plugin name, in the store the replicas share. */
export interface PluginArchives {
  put(name: string, archive: Buffer): Promise<void>;
  get(name: string): Promise<Buffer | undefined>;
  delete(name: string): Promise<void>;
}

export interface PluginReconcilerDeps {
  host: PluginHost;
  plugins: PluginObjects;
  placement: CodePlacement;
  installed: InstalledCode;
  registry: ModelRegistry;
  objects: ObjectService;
  logger: PinoLogger;
  /** Runs plugin operations one at a time: reconciles, and the management API's code placements. */
  oneAtATime: <T>(operation: () => Promise<T>) => Promise<T>;
  /** Set when several servers share the store: each reports its own part of a Plugin's status. */
  replica?: ReplicaIdentity;
  /** Where replicas keep uploaded archives: a server whose code is not the archive a Plugin names fetches it. */
  archives?: PluginArchives;
  /** Upgrades of running plugins not started yet: a failed first start of the new code puts the previous one back. */
  upgrades: PendingUpgrades;
}

/**
 * The one driver of plugins (Halo's PluginReconciler, a Kubernetes controller): level-based, it reads a Plugin object
 * (the desired state), the code this server holds and what it last reported, asks plugin-decision.ts for the step,
 * acts (fetches code, starts, stops, uninstalls through the finalizer) and reports the outcome in status, where
 * callers wait for it. It runs on every change of a Plugin object (every replica runs its own plugins), on a change
 * of a plugin that others wait for, and at boot, in dependency order.
 */
export class PluginReconciler {
  constructor(private readonly deps: PluginReconcilerDeps) {}

  reconcile(name: string): Promise<void> {
    return this.deps.oneAtATime(() => this.reconcileNow(name));
  }

  /** The status a Plugin object is created with: what this server holds of it, resolved and not started. */
  firstStatus(record: PluginRecord, enabled: boolean): PluginStatus {
    return withOwnReport(undefined, statusOf(reported(record, 'RESOLVED'), enabled, undefined), this.deps.replica);
  }

  private async reconcileNow(name: string): Promise<void> {
    const object = await this.deps.plugins.fetch(name);
    let step = this.stepFor(name, object, this.deps.archives !== undefined);
    if (step === 'fetch-code') {
      await this.fetchCode(object!);
      step = this.stepFor(name, object, false);
    }
    const record = this.deps.host.get(name);
    // The upgraded code will not start now (gone, or disabled): the code it replaced is not needed any more.
    if (step === 'forget' || step === 'uninstall' || step === 'stop' || object?.spec.enabled === false) {
      await this.deps.upgrades.discard(name);
    }
    switch (step) {
      case 'none':
        return;
      case 'forget':
        return this.removeCode(record!, { restarting: true });
      case 'uninstall':
        return this.uninstall(object!, record);
      case 'report-code-missing':
        return void (await this.report(object!, (previous) => codeMissingStatus(name, previous)));
      case 'start':
        return this.start(object!, record!);
      case 'stop':
        await this.deps.host.stop(name);
        return void (await this.report(object!, (previous) => statusOf(reported(record!, 'STOPPED'), false, previous)));
      default: {
        const own = ownReport(object!.status, this.deps.replica?.id);
        const phase = restingPhase(object!.spec.enabled, this.deps.host.isRunning(name), own);
        const state = { ...reported(record!, phase), failure: own?.reason, reason: own?.message };
        await this.report(object!, (previous) => statusOf(state, object!.spec.enabled, previous));
      }
    }
  }

  private stepFor(name: string, object: PluginObject | undefined, canFetch: boolean): PluginStep {
    const { host, replica } = this.deps;
    const record = host.get(name);
    return decide(
      object && {
        deleting: Boolean(object.metadata.deletionTimestamp),
        enabled: object.spec.enabled,
        archiveDigest: object.spec.archiveDigest,
        startRequest: startRequestOf(object),
      },
      record && {
        digest: record.digest,
        running: host.isRunning(name),
        failedUnder: record.failedUnder,
        dependenciesMet: host.unmetDependencies(record.manifest).length === 0,
      },
      ownReport(object?.status, replica?.id),
      canFetch,
    );
  }

  /** STARTING is recorded first, so watchers see a start begin (building indexes can take a while). */
  private async start(object: PluginObject, record: PluginRecord): Promise<void> {
    const starting = await this.report(object, startingStatus);
    // The desired state changed meanwhile: the reconcile that change queued decides again.
    if (!starting) return;
    const outcome = await this.deps.host.start(record.name);
    const upgrade = this.deps.upgrades.take(record.name, record.digest);
    if (upgrade && !outcome.ok) return this.rollBack(object, record, upgrade, outcome.reason);
    await upgrade?.previous.discard();
    if (outcome.ok) delete record.failedUnder;
    else record.failedUnder = startRequestOf(object);
    const state: ReportedState = outcome.ok
      ? reported(record, 'STARTED')
      : { ...reported(record, 'FAILED'), failure: outcome.failure, reason: outcome.reason };
    await this.report(starting, (previous) => statusOf(state, object.spec.enabled, previous));
  }

  /**
   * The first start of upgraded code failed: the previous code goes back in place and starts again, and spec names it
   * again (spec describes the code svc holds, as after a restart), with the refused upgrade in `status.lastUpgrade`.
   * The spec change is what brings the other replicas back too: they fetch the archive it names, put back in the store
   * before. Nothing retries the failed code (no restart storm): another upload does.
   */
  private async rollBack(object: PluginObject, record: PluginRecord, upgrade: PendingUpgrade, error: string) {
    const { host, placement, plugins, archives, logger } = this.deps;
    const name = record.name;
    const failed = { version: record.manifest.spec.version, archiveDigest: record.digest };
    const failedLog = host.logs.entries(name);
    await upgrade.previous.restore();
    // The same folder: the host's record of the plugin now describes the code put back.
    const restored = await placement.resolveFolder(record.folder, 'archive');
    if (upgrade.previousArchive) await archives?.put(name, upgrade.previousArchive);
    const reverted = await plugins.updateSpec(object, restored);
    const outcome = await host.start(name);
    const lastUpgrade: FailedUpgrade = {
      ...failed,
      reason: 'UpgradeRolledBack',
      message: error,
      at: new Date().toISOString(),
      rolledBackTo: { version: restored.manifest.spec.version, archiveDigest: restored.digest },
    };
    const summary = `the upgrade to ${failed.version} failed to start (${error}); rolled back to ${lastUpgrade.rolledBackTo.version}`;
    logger.warn({ plugin: name, failedVersion: failed.version, reason: error }, `plugin ${name}: ${summary}`);
    host.logs.prepend(name, [...failedLog, { time: lastUpgrade.at, level: 'warn', message: summary }]);
    if (!outcome.ok) restored.failedUnder = startRequestOf(reverted);
    const state: ReportedState = outcome.ok
      ? reported(restored, 'STARTED')
      : { ...reported(restored, 'FAILED'), failure: outcome.failure, reason: outcome.reason };
    await this.report(reverted, (previous) => ({ ...statusOf(state, reverted.spec.enabled, previous), lastUpgrade }));
  }

  /** Writes this server's report (beside the other replicas' when the store is shared); one log line per new phase. */
  private async report(object: PluginObject, make: (previous: PluginStatus | undefined) => PluginStatus) {
    const { replica, logger } = this.deps;
    const before = ownReport(object.status, replica?.id);
    const written = await writeStatus(this.deps.plugins, object, (previous) =>
      withOwnReport(previous, make(previous), replica),
    );
    const after = ownReport(written?.status, replica?.id);
    if (after && after.phase !== before?.phase) {
      const name = object.metadata.name;
      const why = after.phase === 'FAILED' ? `: ${after.message ?? ''}` : '';
      logger.info(
        { plugin: name, from: before?.phase, to: after.phase, ...(why ? { reason: after.message } : {}) },
        `plugin ${name}: ${before?.phase ?? 'new'} -> ${after.phase}${why}`,
      );
    }
    return written;
  }

  /**
   * Replicas: the Plugin names an archive that is not the code this server holds. It is fetched from the shared store
   * and put in place like any archive; staging digests it, and only the archive the Plugin names is placed (the store
   * may already hold a newer upload, for an upgrade under way).
   */
  private async fetchCode(object: PluginObject): Promise<void> {
    const name = object.metadata.name;
    const wanted = object.spec.archiveDigest;
    const archive = await this.deps.archives?.get(name);
    if (!archive) return;
    const placed = await this.deps.placement.placeArchive(archive, ({ digest }) => digest === wanted);
    if (placed)
      this.deps.logger.info({ plugin: name, digest: wanted }, 'fetched the plugin archive another replica installed');
  }

  /**
   * The finalizer's work: stop the plugin, remove its code (if installed from an archive), let the object go. With
   * `?data=delete` its data goes too: what it owns is deleted while it still runs (its controllers let go of their
   * finalizers), what is left of its models once it has stopped.
   */
  private async uninstall(object: PluginObject, record: PluginRecord | undefined): Promise<void> {
    const name = object.metadata.name;
    const data = uninstallDataOf(object);
    const logger = pluginLogger(this.deps.logger, name);
    if (data === 'delete') await deleteServedData(this.deps, name, logger);
    if (record) await this.removeCode(record);
    if (data === 'delete') {
      await purgeModels(this.deps, [...new Set([...(object.status?.models ?? []), ...(record?.models ?? [])])], logger);
    }
    await this.deps.archives?.delete(name);
    if (object.metadata.finalizers?.includes(UNINSTALL_FINALIZER)) {
      await this.deps.plugins.releaseUninstallFinalizer(name);
    }
    this.deps.logger.info(
      { plugin: name, data },
      `plugin uninstalled, its data ${data === 'delete' ? 'deleted' : 'kept'}`,
    );
  }

  /** Stops a plugin, removes its code if it was installed from an archive, and drops it from the host. */
  private async removeCode(record: PluginRecord, stop: { restarting?: boolean } = {}): Promise<void> {
    await this.deps.host.stop(record.name, stop);
    if (record.source === 'archive') await this.deps.installed.remove(record.name);
    this.deps.host.forget(record.name);
  }
}

/** What status reports of `record` in `phase`. */
function reported(record: PluginRecord, phase: ReportedState['phase']): ReportedState {
  const { folder, source, digest, startedAt, models } = record;
  return { phase, folder, source, digest, startedAt, models, version: record.manifest.spec.version };
}
