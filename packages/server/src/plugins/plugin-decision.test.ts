import { describe, expect, it } from 'vitest';
import {
  type DesiredState,
  decide,
  type HeldCode,
  type LastReport,
  restingPhase,
  waitingOn,
} from './plugin-decision.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const want = (state: Partial<DesiredState> = {}): DesiredState => ({
  deleting: false,
  enabled: true,
  startRequest: '',
  ...state,
});
const held = (state: Partial<HeldCode> = {}): HeldCode => ({ running: false, dependenciesMet: true, ...state });
const reported = (phase: LastReport['phase'], reason?: string): LastReport => ({ phase, reason });
const failedHere = held({ failedUnder: '' });

describe('the plugin reconciler: the one step that brings what runs here in line with the Plugin', () => {
  it.each([
    // No Plugin object.
    { name: 'no object, no code', desired: undefined, code: undefined, step: 'none' },
    {
      name: 'no object, code held (running or not)',
      desired: undefined,
      code: held({ running: true }),
      step: 'forget',
    },
    // Deleted: the uninstall, whatever else holds.
    {
      name: 'deleted while running',
      desired: want({ deleting: true }),
      code: held({ running: true }),
      step: 'uninstall',
    },
    { name: 'deleted, no code here', desired: want({ deleting: true, archiveDigest: A }), step: 'uninstall' },
    // The code wanted: fetched only where replicas share archives.
    {
      name: 'another archive wanted, replicas',
      desired: want({ archiveDigest: B }),
      code: held({ digest: A }),
      canFetch: true,
      step: 'fetch-code',
    },
    {
      name: 'an archive wanted, no code here, replicas',
      desired: want({ archiveDigest: B }),
      canFetch: true,
      step: 'fetch-code',
    },
    {
      name: 'the archive held, replicas',
      desired: want({ archiveDigest: A }),
      code: held({ digest: A, running: true }),
      canFetch: true,
      step: 'report',
    },
    {
      name: 'another archive wanted, one server',
      desired: want({ archiveDigest: B }),
      code: held({ digest: A }),
      step: 'start',
    },
    {
      name: 'a folder plugin, replicas',
      desired: want(),
      code: held({ running: true }),
      canFetch: true,
      step: 'report',
    },
    // The code is not here.
    { name: 'enabled, code missing', desired: want(), step: 'report-code-missing' },
    { name: 'disabled, code missing', desired: want({ enabled: false }), step: 'report-code-missing' },
    // Disabled: stop what runs.
    { name: 'disabled, running', desired: want({ enabled: false }), code: held({ running: true }), step: 'stop' },
    {
      name: 'disabled, not running',
      desired: want({ enabled: false }),
      code: held(),
      reported: reported('FAILED', 'StartFailed'),
      step: 'report',
    },
    // Enabled: start what does not run.
    {
      name: 'enabled, running',
      desired: want(),
      code: held({ running: true }),
      reported: reported('STARTED'),
      step: 'report',
    },
    { name: 'enabled, installed', desired: want(), code: held(), reported: reported('RESOLVED'), step: 'start' },
    { name: 'enabled, nothing reported yet', desired: want(), code: held(), step: 'start' },
    {
      name: 'enabled, stopped',
      desired: want(),
      code: held(),
      reported: reported('STOPPED', 'Stopped'),
      step: 'start',
    },
    {
      name: 'enabled, reported running (new code stopped it)',
      desired: want(),
      code: held(),
      reported: reported('STARTED'),
      step: 'start',
    },
    {
      name: 'enabled, a start cut short',
      desired: want(),
      code: held(),
      reported: reported('STARTING'),
      step: 'start',
    },
    // A failed start is tried again only when something changed.
    {
      name: 'failed here, nothing changed',
      desired: want(),
      code: failedHere,
      reported: reported('FAILED', 'StartFailed'),
      step: 'report',
    },
    {
      name: 'failed here, a new start request',
      desired: want({ startRequest: 'now' }),
      code: failedHere,
      reported: reported('FAILED', 'StartFailed'),
      step: 'start',
    },
    {
      name: 'failed before this process (or this code)',
      desired: want(),
      code: held(),
      reported: reported('FAILED', 'StartFailed'),
      step: 'start',
    },
    {
      name: 'waited for a plugin that now runs',
      desired: want(),
      code: failedHere,
      reported: reported('FAILED', 'DependenciesNotMet'),
      step: 'start',
    },
    {
      name: 'waits for a plugin still not running',
      desired: want(),
      code: held({ failedUnder: '', dependenciesMet: false }),
      reported: reported('FAILED', 'DependenciesNotMet'),
      step: 'report',
    },
    {
      name: 'code missing before, here now',
      desired: want(),
      code: held(),
      reported: reported('FAILED', 'CodeMissing'),
      step: 'start',
    },
  ] as Array<{
    name: string;
    desired: DesiredState | undefined;
    code?: HeldCode;
    reported?: LastReport;
    canFetch?: boolean;
    step: string;
  }>)('$name: $step', ({ desired, code, reported: last, canFetch, step }) => {
    expect(decide(desired, code, last, canFetch ?? false)).toBe(step);
  });
});

describe('the phase a report records', () => {
  it.each([
    { name: 'running', enabled: true, running: true, last: reported('STARTING'), phase: 'STARTED' },
    { name: 'running, being disabled', enabled: false, running: true, last: reported('STARTED'), phase: 'STARTED' },
    {
      name: 'a failure not tried again',
      enabled: true,
      running: false,
      last: reported('FAILED', 'StartFailed'),
      phase: 'FAILED',
    },
    {
      name: 'a failure, disabled since',
      enabled: false,
      running: false,
      last: reported('FAILED', 'StartFailed'),
      phase: 'STOPPED',
    },
    { name: 'disabled after running', enabled: false, running: false, last: reported('STARTED'), phase: 'STOPPED' },
    { name: 'installed, never started', enabled: false, running: false, last: reported('RESOLVED'), phase: 'RESOLVED' },
    { name: 'first report', enabled: false, running: false, last: undefined, phase: 'RESOLVED' },
    {
      name: 'its code arrived',
      enabled: false,
      running: false,
      last: reported('FAILED', 'CodeMissing'),
      phase: 'RESOLVED',
    },
  ])('$name: $phase', ({ enabled, running, last, phase }) => {
    expect(restingPhase(enabled, running, last)).toBe(phase);
  });
});

describe('plugins waiting on another', () => {
  const code = (name: string, running: boolean, requires: Record<string, string> = {}) => ({
    name,
    running,
    manifest: { spec: { pluginDependencies: requires } },
  });
  const isRunning = (name: string) => held.find((other) => other.name === name)?.running ?? false;
  const held = [
    code('blog', false, { people: '^1.0.0' }),
    code('shop', true, { people: '^1.0.0' }),
    code('wiki', false, { search: '^2.0.0' }),
    code('crm', false, { search: '*', people: '>=1' }),
    code('solo', false),
  ];

  it.each([
    { changed: 'people', want: ['blog', 'crm'] },
    { changed: 'search', want: ['wiki', 'crm'] },
    { changed: 'blog', want: [] },
  ])('a change of $changed: $want', ({ changed, want }) => {
    expect(waitingOn(changed, held, isRunning)).toEqual(want);
  });
});
