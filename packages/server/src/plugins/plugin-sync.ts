/**
 * The decisions of the plugin sync, as pure functions: given a Plugin object (the desired state) and the host's record
 * (the running state), what brings the second in line with the first. plugin-lifecycle.ts reads both, asks here, acts
 * and records the outcome in status.
 */
import type { PluginPhase } from './plugin-model.js';

/** What the sync reads of a Plugin object. */
export interface DesiredState {
  metadata: { deletionTimestamp?: string | null };
  spec: { enabled: boolean };
}

/** What the sync reads of the host's record of a plugin. */
export interface RunningState {
  phase: PluginPhase;
}

/** The step a sync takes; each carries what it acts on, so no step needs to look again at what was absent. */
export type SyncStep<O, R> =
  /** Neither an object nor code: nothing to do. */
  | { step: 'none' }
  /** The object is gone while the host still holds the code: stop the plugin and drop the code. */
  | { step: 'forget'; record: R }
  /** The object is being deleted: the uninstall finalizer's work. */
  | { step: 'uninstall'; object: O; record: R | undefined }
  /** The object exists, the code is not on this server: say so in status. */
  | { step: 'report-code-missing'; object: O }
  /** Start or stop the plugin and then report, or only report what runs. */
  | { step: RunningStep; object: O; record: R };

export type RunningStep = 'start' | 'stop' | 'report';

/** What a sync of one plugin does; `retry` asks to start a FAILED plugin again. */
export function planSync<O extends DesiredState, R extends RunningState>(
  object: O | undefined,
  record: R | undefined,
  retry: boolean,
): SyncStep<O, R> {
  if (!object) return record ? { step: 'forget', record } : { step: 'none' };
  if (object.metadata.deletionTimestamp) return { step: 'uninstall', object, record };
  if (!record) return { step: 'report-code-missing', object };
  return { step: runningStep(object.spec.enabled, record.phase, retry), object, record };
}

/**
 * Start, stop or only report. A FAILED plugin is started again only when a caller asks (enabling or upgrading it, or a
 * plugin it waited for now running), not on every change of its object. Disabling a FAILED plugin stops it, so it
 * reads STOPPED rather than a failure nobody will retry.
 */
export function runningStep(enabled: boolean, phase: PluginPhase, retry: boolean): RunningStep {
  if (enabled) return phase === 'RESOLVED' || phase === 'STOPPED' || (phase === 'FAILED' && retry) ? 'start' : 'report';
  return phase === 'STARTED' || phase === 'FAILED' ? 'stop' : 'report';
}

/** What `waitingOn` reads of a record. */
export interface WaitingState {
  name: string;
  failure?: string;
  manifest: { spec: { pluginDependencies?: Record<string, string> } };
}

/** Plugins that failed only because plugin `name` was not running: they get another try once it is. */
export function waitingOn(name: string, records: Iterable<WaitingState>): string[] {
  const waiting: string[] = [];
  for (const other of records) {
    if (other.failure === 'DependenciesNotMet' && other.manifest.spec.pluginDependencies?.[name] !== undefined) {
      waiting.push(other.name);
    }
  }
  return waiting;
}
