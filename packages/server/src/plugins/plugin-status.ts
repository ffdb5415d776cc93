import { isDeepStrictEqual } from 'node:util';
import { isApiError, type PluginPhase, type PluginStatus, type ReplicaReport } from '@svc/plugin-api';
import type { LastReport } from './plugin-decision.js';
import type { PluginRecord } from './plugin-host.js';
import { nextStatus, startRequestOf } from './plugin-model.js';
import type { PluginObject } from './plugin-object.js';
import type { PluginObjects } from './plugin-objects.js';

/** What a Plugin's status says of a plugin on this server: its phase (the reconciler's), and of its code and start. */
export interface ReportedState extends Pick<PluginRecord, 'folder' | 'source' | 'digest' | 'startedAt' | 'models'> {
  phase: PluginPhase;
  /** The version of the code in place. */
  version?: string;
  /** Why it FAILED: the machine-readable cause, and the message. */
  failure?: string;
  reason?: string;
}

/** The status that reports what this server runs of a plugin whose desired state is `enabled`. */
export function statusOf(record: ReportedState, enabled: boolean, previous: PluginStatus | undefined): PluginStatus {
  const extra: Partial<PluginStatus> = {
    loadLocation: record.folder,
    source: record.source,
    ...(record.digest ? { archiveDigest: record.digest } : {}),
    ...(record.version ? { version: record.version } : {}),
  };
  switch (record.phase) {
    case 'STARTED':
      return nextStatus(
        withoutStaleUpgrade(previous, record.digest),
        'STARTED',
        { status: 'True', reason: 'Started', message: 'the plugin is running' },
        {
          ...extra,
          lastStartTime: record.startedAt,
          models: [...new Set([...(previous?.models ?? []), ...(record.models ?? [])])].sort(),
        },
      );
    case 'FAILED':
      return nextStatus(
        previous,
        'FAILED',
        { status: 'False', reason: record.failure ?? 'StartFailed', message: record.reason ?? '' },
        extra,
      );
    case 'STOPPED':
      return nextStatus(
        previous,
        'STOPPED',
        enabled
          ? { status: 'False', reason: 'Stopped', message: 'the plugin is stopped' }
          : { status: 'False', reason: 'Disabled', message: 'the plugin is disabled' },
        extra,
      );
    default:
      return nextStatus(
        previous,
        record.phase,
        { status: 'False', reason: 'Installed', message: 'installed, not started' },
        extra,
      );
  }
}

/** A failed upgrade stays reported while the code it rolled back to is what starts; other code starting clears it. */
function withoutStaleUpgrade(previous: PluginStatus | undefined, digest: string | undefined) {
  if (!previous?.lastUpgrade || previous.lastUpgrade.rolledBackTo.archiveDigest === digest) return previous;
  const { lastUpgrade: _cleared, ...rest } = previous;
  return rest;
}

/** A Plugin object whose code this server does not hold (installed on another replica, or its folder removed). */
export function codeMissingStatus(name: string, previous: PluginStatus | undefined): PluginStatus {
  return nextStatus(previous, 'FAILED', {
    status: 'False',
    reason: 'CodeMissing',
    message: `the code of plugin "${name}" is not on this server`,
  });
}

/** Recorded before the host starts a plugin, so watchers see the start begin (indexes can take a while). */
export function startingStatus(previous: PluginStatus | undefined): PluginStatus {
  return nextStatus(previous, 'STARTING', {
    status: 'Unknown',
    reason: 'Starting',
    message: 'loading the code, registering models and building their indexes',
  });
}

/** Which replica this is, when several share the store. */
export interface ReplicaIdentity {
  id: string;
  leads: () => boolean;
}

/**
 * The status a replica writes: its own entry in `replicas`, and, if it leads (or no status exists yet), the top-level
 * fields from what it runs. Each server rewriting only its own part keeps replicas from overwriting each other's
 * view on every change, which would never settle.
 */
export function replicaStatus(
  current: PluginStatus | undefined,
  own: PluginStatus,
  replica: ReplicaIdentity,
): PluginStatus {
  const ready = own.conditions.find((condition) => condition.type === 'Ready');
  const entry: ReplicaReport = { name: replica.id, phase: own.phase };
  if (ready && ready.status === 'False') Object.assign(entry, { reason: ready.reason, message: ready.message });
  if (own.archiveDigest) entry.archiveDigest = own.archiveDigest;
  if (own.version) entry.version = own.version;
  const others = (current?.replicas ?? []).filter((report) => report.name !== replica.id);
  const replicas = [...others, entry].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const { replicas: _ignored, lastUpgrade: _theirs, ...base } = replica.leads() || !current ? own : current;
  // A failed upgrade is reported by the replica that rolled it back, leader or not (`own` is made from `current`,
  // so it carries the one reported before unless this replica changed it).
  return { ...base, ...(own.lastUpgrade ? { lastUpgrade: own.lastUpgrade } : {}), replicas };
}

/** This server's own last report in a Plugin's status: its entry among replicas', or the status itself. */
export function ownReport(
  status: PluginStatus | undefined,
  replicaId: string | undefined,
): (LastReport & { message?: string; archiveDigest?: string; version?: string }) | undefined {
  if (!status) return undefined;
  if (replicaId !== undefined) return status.replicas?.find((entry) => entry.name === replicaId);
  const ready = status.conditions?.find((condition) => condition.type === 'Ready');
  const { phase, archiveDigest, version } = status;
  return { phase, reason: ready?.reason, message: ready?.message, archiveDigest, version };
}

/** The status to write: this server's own report, as its entry beside the other replicas' when the store is shared. */
export function withOwnReport(
  previous: PluginStatus | undefined,
  own: PluginStatus,
  replica: ReplicaIdentity | undefined,
): PluginStatus {
  return replica ? replicaStatus(previous, own, replica) : own;
}

/**
 * Writes status when it changed, on the freshest version of the object; returns the object as stored. A conflict
 * with another replica's report is retried a few times on the object read again, with the status made again from it.
 * A conflict with a change of the desired state (spec, a start request, the deletion) is not: the status was made for
 * the state before, and the reconcile that change queued reports instead. So a report committed after a change of the
 * desired state always reflects it, which is what callers waiting on status rely on. Answers undefined then.
 */
export async function writeStatus(
  plugins: PluginObjects,
  object: PluginObject,
  make: (previous: PluginStatus | undefined) => PluginStatus,
): Promise<PluginObject | undefined> {
  let current = object;
  for (let attempt = 0; ; attempt++) {
    const status = make(current.status);
    if (isDeepStrictEqual(current.status, status)) return current;
    try {
      return await plugins.updateStatus(current, status);
    } catch (error) {
      if (!isApiError(error) || error.status !== 409 || attempt >= 5) throw error;
      const fresh = await plugins.fetch(current.metadata.name);
      if (!fresh || !isDeepStrictEqual(desiredStateOf(fresh), desiredStateOf(object))) return undefined;
      current = fresh;
    }
  }
}

/** The part of a Plugin a reconcile acts on. */
export function desiredStateOf(object: PluginObject): unknown[] {
  return [object.spec, startRequestOf(object), Boolean(object.metadata.deletionTimestamp)];
}
