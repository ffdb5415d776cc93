import { describe, expect, it } from 'vitest';
import type { PluginPhase } from './plugin-model.js';
import { type DesiredState, planSync, waitingOn } from './plugin-sync.js';

const enabled: DesiredState = { metadata: {}, spec: { enabled: true } };
const disabled: DesiredState = { metadata: {}, spec: { enabled: false } };
const deleting = (spec: DesiredState['spec']): DesiredState => ({
  metadata: { deletionTimestamp: '2024-01-01T00:00:00.000Z' },
  spec,
});
const at = (phase: PluginPhase) => ({ phase });

describe('plugin sync: what brings the running state in line with the desired state', () => {
  it.each([
    // No Plugin object.
    { name: 'no object and no code: nothing', object: undefined, record: undefined, retry: false, want: 'none' },
    {
      name: 'no object, code held and running: forget it',
      object: undefined,
      record: at('STARTED'),
      retry: false,
      want: 'forget',
    },
    {
      name: 'no object, code held and stopped: forget it',
      object: undefined,
      record: at('STOPPED'),
      retry: false,
      want: 'forget',
    },
    // Deleted objects are uninstalled, whatever their spec says or the host runs.
    {
      name: 'deleted while running',
      object: deleting({ enabled: true }),
      record: at('STARTED'),
      retry: false,
      want: 'uninstall',
    },
    {
      name: 'deleted while disabled',
      object: deleting({ enabled: false }),
      record: at('STOPPED'),
      retry: true,
      want: 'uninstall',
    },
    {
      name: 'deleted with no code here',
      object: deleting({ enabled: true }),
      record: undefined,
      retry: false,
      want: 'uninstall',
    },
    // An object whose code this server lacks.
    { name: 'enabled, code missing', object: enabled, record: undefined, retry: true, want: 'report-code-missing' },
    { name: 'disabled, code missing', object: disabled, record: undefined, retry: false, want: 'report-code-missing' },
    // Enabled: start what is not running; a failure is retried only when asked.
    { name: 'enabled, RESOLVED', object: enabled, record: at('RESOLVED'), retry: false, want: 'start' },
    { name: 'enabled, STOPPED', object: enabled, record: at('STOPPED'), retry: false, want: 'start' },
    { name: 'enabled, FAILED, no retry', object: enabled, record: at('FAILED'), retry: false, want: 'report' },
    { name: 'enabled, FAILED, retry', object: enabled, record: at('FAILED'), retry: true, want: 'start' },
    { name: 'enabled, STARTED', object: enabled, record: at('STARTED'), retry: true, want: 'report' },
    { name: 'enabled, STARTING', object: enabled, record: at('STARTING'), retry: false, want: 'report' },
    { name: 'enabled, STOPPING', object: enabled, record: at('STOPPING'), retry: false, want: 'report' },
    // Disabled: stop what runs, and a failure too (so it reads STOPPED).
    { name: 'disabled, STARTED', object: disabled, record: at('STARTED'), retry: false, want: 'stop' },
    { name: 'disabled, FAILED', object: disabled, record: at('FAILED'), retry: false, want: 'stop' },
    { name: 'disabled, RESOLVED', object: disabled, record: at('RESOLVED'), retry: true, want: 'report' },
    { name: 'disabled, STOPPED', object: disabled, record: at('STOPPED'), retry: false, want: 'report' },
    { name: 'disabled, STARTING', object: disabled, record: at('STARTING'), retry: false, want: 'report' },
  ])('$name: $want', ({ object, record, retry, want }) => {
    expect(planSync(object, record, retry).step).toBe(want);
  });

  it('hands each step what it acts on', () => {
    const record = at('STOPPED');
    expect(planSync(enabled, record, false)).toEqual({ step: 'start', object: enabled, record });
    expect(planSync(undefined, record, false)).toEqual({ step: 'forget', record });
    expect(planSync(enabled, undefined, false)).toEqual({ step: 'report-code-missing', object: enabled });
    const gone = deleting({ enabled: true });
    expect(planSync(gone, undefined, false)).toEqual({ step: 'uninstall', object: gone, record: undefined });
  });
});

describe('plugins waiting on another', () => {
  const plugin = (name: string, failure: string | undefined, requires: Record<string, string> = {}) => ({
    name,
    failure,
    manifest: { spec: { pluginDependencies: requires } },
  });
  const records = [
    plugin('blog', 'DependenciesNotMet', { people: '^1.0.0' }),
    plugin('shop', 'StartFailed', { people: '^1.0.0' }),
    plugin('wiki', 'DependenciesNotMet', { search: '^2.0.0' }),
    plugin('forum', undefined, { people: '^1.0.0' }),
    plugin('crm', 'DependenciesNotMet', { search: '*', people: '>=1' }),
  ];

  it.each([
    { started: 'people', want: ['blog', 'crm'] },
    { started: 'search', want: ['wiki', 'crm'] },
    { started: 'blog', want: [] },
  ])('once $started runs: $want', ({ started, want }) => {
    expect(waitingOn(started, records)).toEqual(want);
  });

  it('ignores a plugin with no requirements at all', () => {
    expect(waitingOn('people', [{ name: 'solo', failure: 'DependenciesNotMet', manifest: { spec: {} } }])).toEqual([]);
  });
});
