import { isDeepStrictEqual } from 'node:util';
import { alreadyExists, badRequest } from '@svc/plugin-api';
import type { Actor } from '../registry/admission.js';
import type { ObjectService } from '../registry/object-service.js';
import type { CodePlacement } from './code-placement.js';
import type { PreviousCode } from './installed-code.js';
import type { PendingUpgrades } from './pending-upgrades.js';
import { checkDependenciesInstalled, checkUpgrade } from './plugin-admission.js';
import type { PluginHost } from './plugin-host.js';
import type { PluginObject } from './plugin-object.js';
import type { PluginObjects } from './plugin-objects.js';
import type { PluginArchives, PluginReconciler } from './plugin-reconciler.js';
import { ownReport } from './plugin-status.js';
import { PluginFollower, type WaitOutcome } from './plugin-status-wait.js';

export interface PluginManagementDeps {
  host: PluginHost;
  plugins: PluginObjects;
  objects: ObjectService;
  placement: CodePlacement;
  reconciler: PluginReconciler;
  /** The lock the reconciler runs under: a placement never meets a start or stop half done. */
  oneAtATime: <T>(operation: () => Promise<T>) => Promise<T>;
  /** How long a caller waits for the status it asked for before it is answered with the state as it stands. */
  waitLimitMs: number;
  replicaId?: string;
  archives?: PluginArchives;
  upgrades: PendingUpgrades;
}

type OwnReport = ReturnType<typeof ownReport>;

/**
 * What the management API does (docs/api.md "Plugins"): it places code and writes the desired state (the Plugin's
 * spec, or a start request), then, when the caller waits, waits for this server's report in status. It never starts
 * or stops a plugin itself: the reconciler does, reacting to those writes.
 */
export class PluginManagement {
  constructor(private readonly deps: PluginManagementDeps) {}

  /** Installs an uploaded archive: checked, put in place, recorded as a Plugin object (with its status); not started. */
  install(archive: Buffer): Promise<PluginObject> {
    const { host, plugins, placement, reconciler } = this.deps;
    return this.deps.oneAtATime(async () => {
      const record = await placement.placeArchive(archive, async ({ manifest }) => {
        const name = manifest.metadata.name;
        if (host.get(name) || (await plugins.fetch(name))) {
          throw alreadyExists(`plugin "${name}" is already installed; upgrade it with POST …/plugins/${name}/upgrade`);
        }
        checkDependenciesInstalled(host, manifest);
        return true;
      });
      await this.share(record!.name, archive);
      return plugins.create(record!, false, reconciler.firstStatus(record!, false));
    });
  }

  /**
   * Replaces a plugin's code with an uploaded archive (its data stays) and asks for a start of it, which the reconciler
   * makes if the plugin should run; waits for this server's report of the new code, or of its rollback. The code of
   * a running plugin is kept aside until the new code has started (pending-upgrades.ts).
   */
  async upgrade(name: string, archive: Buffer): Promise<WaitOutcome> {
    const { host, plugins, placement, upgrades } = this.deps;
    const follower = this.follow(name);
    try {
      const { written, before, digest } = await this.deps.oneAtATime(async () => {
        let existing: PluginObject | undefined;
        let previous: PreviousCode | undefined;
        // An upgrade placed before, not started yet, set aside the code that last ran already.
        const keep = host.isRunning(name) && !upgrades.has(name);
        const record = await placement.placeArchive(
          archive,
          async ({ manifest }) => {
            if (manifest.metadata.name !== name) {
              throw badRequest(`the archive holds plugin "${manifest.metadata.name}", not "${name}"`);
            }
            existing = await plugins.get(name);
            checkUpgrade(host, name, manifest);
            return true;
          },
          keep ? { keepPrevious: (code) => (previous = code) } : {},
        );
        if (previous) {
          const previousArchive = await this.deps.archives?.get(name);
          upgrades.add(name, { digest: record!.digest!, previous, previousArchive });
        } else upgrades.retarget(name, record!.digest!);
        await this.share(name, archive);
        // The start request makes every upgrade a change of the desired state, the same archive again included.
        const updated = await plugins.updateSpec(existing!, record!, { requestStart: true });
        return { written: updated, before: this.own(existing!), digest: record!.digest };
      });
      const enabled = written.spec.enabled;
      return await this.wait(
        follower,
        written,
        before,
        enabled,
        enabled,
        (own, state) => own?.archiveDigest === digest || state.status?.lastUpgrade?.archiveDigest === digest,
      );
    } finally {
      follower.close();
    }
  }

  /**
   * Sets `spec.enabled` as `actor` (an ordinary update, checked by admission). Enabling a plugin whose start failed
   * asks for another start. Unless `wait` is false, answers once this server reports it STARTED, STOPPED or FAILED.
   */
  async setEnabled(name: string, enable: boolean, actor: Actor, wait: boolean): Promise<WaitOutcome> {
    const { plugins } = this.deps;
    const object = await plugins.get(name);
    const before = this.own(object);
    const follower = this.follow(name);
    try {
      let written = object;
      if (object.spec.enabled !== enable) written = await plugins.setEnabled(name, enable, actor);
      else if (enable && startFailedSomewhere(object)) written = await plugins.requestStart(name, actor);
      if (!wait) return { object: written, settled: false };
      const startsAgain = enable && before?.phase === 'FAILED' && before.reason !== 'CodeMissing';
      return await this.wait(follower, written, before, enable, startsAgain);
    } finally {
      follower.close();
    }
  }

  /**
   * Waits for this server's report to settle for `enabled` (and to pass `also`). When a start is expected, a report
   * that settled already (a failure about to be tried again) does not count until the report has changed.
   */
  private wait(
    follower: PluginFollower,
    written: PluginObject,
    before: OwnReport,
    enabled: boolean,
    mustChange: boolean,
    also: (own: OwnReport, state: PluginObject) => boolean = () => true,
  ): Promise<WaitOutcome> {
    let changed = !mustChange;
    return follower.until(
      written,
      (state) => {
        const own = this.own(state);
        changed ||= !isDeepStrictEqual(own, before);
        return changed && settles(enabled, own) && also(own, state);
      },
      this.deps.waitLimitMs,
    );
  }

  private follow(name: string): PluginFollower {
    return new PluginFollower(this.deps.objects, this.deps.plugins.served, name);
  }

  private own(object: PluginObject): OwnReport {
    return ownReport(object.status, this.deps.replicaId);
  }

  /** Keeps an uploaded archive where the other replicas find it, before the Plugin object that names it is written. */
  private async share(name: string, archive: Buffer): Promise<void> {
    await this.deps.archives?.put(name, archive);
  }
}

/** Whether a report is one a caller asking for `enabled` waits for: running or failed, stopped or never started. */
function settles(enabled: boolean, own: OwnReport): boolean {
  if (!own) return false;
  if (enabled) return own.phase === 'STARTED' || own.phase === 'FAILED';
  return own.phase === 'STOPPED' || own.phase === 'RESOLVED' || own.reason === 'CodeMissing';
}

/** A start failed on this server or another replica (not for want of the code: another start would not find it). */
function startFailedSomewhere(object: PluginObject): boolean {
  const status = object.status;
  const reports = [ownReport(status, undefined), ...(status?.replicas ?? [])];
  return reports.some((report) => report?.phase === 'FAILED' && report.reason !== 'CodeMissing');
}
