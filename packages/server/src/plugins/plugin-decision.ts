/**
 * What the plugin reconciler does for one plugin, as pure functions. It reads three things: the Plugin object (the
 * desired state), the code this server holds and whether it runs, and what this server last reported in status; here
 * they give the one step that brings the second in line with the first. plugin-reconciler.ts reads, asks, acts and
 * reports the outcome in status.
 */
import type { PluginPhase } from '@svc/plugin-api';

/** What the decision reads of a Plugin object. */
export interface DesiredState {
  deleting: boolean;
  enabled: boolean;
  /** The archive whose code is wanted (none for a folder of SVC_PLUGINS_DIR). */
  archiveDigest?: string;
  /** The latest request for another start ('' when none was made). */
  startRequest: string;
}

/** What the decision reads of the code this server holds. */
export interface HeldCode {
  /** The archive the code was unpacked from, when known. */
  digest?: string;
  running: boolean;
  /** The start request under which this code's latest start here failed, if it did. */
  failedUnder?: string;
  /** Whether every plugin it requires runs here now, at a version in range. */
  dependenciesMet: boolean;
}

/** What this server last reported of the plugin. */
export interface LastReport {
  phase: PluginPhase;
  /** The Ready condition's reason. */
  reason?: string;
}

export type PluginStep =
  /** Neither an object nor code: nothing to do. */
  | 'none'
  /** The object is gone while this server still holds the code: stop the plugin and drop the code. */
  | 'forget'
  /** The object is being deleted: the uninstall finalizer's work. */
  | 'uninstall'
  /** The object names an archive this server does not hold: fetch it from the shared store, then decide again. */
  | 'fetch-code'
  /** The object exists, the code is not on this server: say so in status. */
  | 'report-code-missing'
  | 'start'
  | 'stop'
  /** Nothing to change: report what runs (spec or code may have changed what status says). */
  | 'report';

/** The step that brings what runs here in line with the Plugin; `canFetch` when replicas share uploaded archives. */
export function decide(
  desired: DesiredState | undefined,
  held: HeldCode | undefined,
  reported: LastReport | undefined,
  canFetch: boolean,
): PluginStep {
  if (!desired) return held ? 'forget' : 'none';
  if (desired.deleting) return 'uninstall';
  if (canFetch && desired.archiveDigest && desired.archiveDigest !== held?.digest) return 'fetch-code';
  if (!held) return 'report-code-missing';
  if (!desired.enabled) return held.running ? 'stop' : 'report';
  if (held.running) return 'report';
  return startsAgain(desired, held, reported) ? 'start' : 'report';
}

/**
 * An enabled plugin that does not run is started, except after a start of this code that failed here: that one is
 * tried again only for a new start request, once the plugins it waited for run, or with new code (which clears
 * `failedUnder`, as a new process does), not on every change of its object.
 */
function startsAgain(desired: DesiredState, held: HeldCode, reported: LastReport | undefined): boolean {
  if (reported?.phase !== 'FAILED' || held.failedUnder === undefined) return true;
  if (held.failedUnder !== desired.startRequest) return true;
  return reported.reason === 'DependenciesNotMet' && held.dependenciesMet;
}

/**
 * The phase a `report` step records: STARTED while it runs; a failure stays reported while the plugin should run and
 * is not tried again; otherwise STOPPED once it has run or failed here, RESOLVED before (installed, never started).
 */
export function restingPhase(enabled: boolean, running: boolean, reported: LastReport | undefined): PluginPhase {
  if (running) return 'STARTED';
  if (enabled && reported?.phase === 'FAILED' && reported.reason !== 'CodeMissing') return 'FAILED';
  if (!reported || reported.phase === 'RESOLVED' || reported.reason === 'CodeMissing') return 'RESOLVED';
  return 'STOPPED';
}

/** What `waitingOn` reads of the code a server holds. */
export interface WaitingCode {
  name: string;
  manifest: { spec: { pluginDependencies?: Record<string, string> } };
}

/** The plugins not running that require plugin `name`: a change of it may let them start. */
export function waitingOn(name: string, held: Iterable<WaitingCode>, isRunning: (name: string) => boolean): string[] {
  const waiting: string[] = [];
  for (const other of held) {
    if (!isRunning(other.name) && other.manifest.spec.pluginDependencies?.[name] !== undefined)
      waiting.push(other.name);
  }
  return waiting;
}
