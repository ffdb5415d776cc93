import { isDeepStrictEqual } from 'node:util';
import { isApiError } from '@svc/plugin-api';
import type { PluginRecord } from './plugin-host.js';
import { nextStatus, type PluginStatus } from './plugin-model.js';
import type { PluginObject } from './plugin-object.js';
import type { PluginObjects } from './plugin-objects.js';

/** What a Plugin's status reads of the host's record of it. */
export type ReportedState = Pick<PluginRecord, 'phase' | 'folder' | 'source' | 'failure' | 'reason' | 'startedAt'>;

/** The status that reports what the host runs of a plugin whose desired state is `enabled`. */
export function statusOf(record: ReportedState, enabled: boolean, previous: PluginStatus | undefined): PluginStatus {
  const extra: Partial<PluginStatus> = { loadLocation: record.folder, source: record.source };
  switch (record.phase) {
    case 'STARTED':
      return nextStatus(
        previous,
        'STARTED',
        { status: 'True', reason: 'Started', message: 'the plugin is running' },
        {
          ...extra,
          lastStartTime: record.startedAt,
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

/**
 * Writes status when it changed, on the freshest version of the object; returns the object as stored. A conflict
 * (a spec write landed meanwhile) is retried a few times on the object read again: status is svc's own to write.
 */
export async function writeStatus(
  plugins: PluginObjects,
  object: PluginObject,
  status: PluginStatus,
): Promise<PluginObject> {
  let current = object;
  for (let attempt = 0; ; attempt++) {
    if (isDeepStrictEqual(current.status, status)) return current;
    try {
      return await plugins.updateStatus(current, status);
    } catch (error) {
      if (!isApiError(error) || error.status !== 409 || attempt >= 3) throw error;
      current = (await plugins.fetch(current.metadata.name)) ?? current;
    }
  }
}
