import type { FailedUpgrade, PluginStatus } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { codeMissingStatus, type ReportedState, replicaStatus, startingStatus, statusOf } from './plugin-status.js';

const FOLDER = '/data/plugins/people';
const record = (state: Partial<ReportedState> & Pick<ReportedState, 'phase'>): ReportedState => ({
  folder: FOLDER,
  source: 'archive',
  ...state,
});
const EARLIER = '2020-01-01T00:00:00.000Z';
const previous = (phase: PluginStatus['phase'], ready: 'True' | 'False' | 'Unknown'): PluginStatus => ({
  phase,
  conditions: [{ type: 'Ready', status: ready, reason: 'Before', message: 'before', lastTransitionTime: EARLIER }],
});

describe('plugin status: what the host runs, as a Plugin object reports it', () => {
  it.each([
    {
      name: 'STARTED',
      record: record({ phase: 'STARTED', startedAt: '2024-05-01T10:00:00.000Z' }),
      enabled: true,
      want: {
        phase: 'STARTED',
        ready: ['True', 'Started', 'the plugin is running'],
        lastStartTime: '2024-05-01T10:00:00.000Z',
      },
    },
    {
      name: 'FAILED for want of a dependency',
      record: record({
        phase: 'FAILED',
        failure: 'DependenciesNotMet',
        reason: 'required plugins are not started: a@1',
      }),
      enabled: true,
      want: { phase: 'FAILED', ready: ['False', 'DependenciesNotMet', 'required plugins are not started: a@1'] },
    },
    {
      name: 'FAILED with no recorded cause',
      record: record({ phase: 'FAILED' }),
      enabled: true,
      want: { phase: 'FAILED', ready: ['False', 'StartFailed', ''] },
    },
    {
      name: 'STOPPED while enabled',
      record: record({ phase: 'STOPPED' }),
      enabled: true,
      want: { phase: 'STOPPED', ready: ['False', 'Stopped', 'the plugin is stopped'] },
    },
    {
      name: 'STOPPED while disabled',
      record: record({ phase: 'STOPPED' }),
      enabled: false,
      want: { phase: 'STOPPED', ready: ['False', 'Disabled', 'the plugin is disabled'] },
    },
    {
      name: 'RESOLVED',
      record: record({ phase: 'RESOLVED', source: 'directory' }),
      enabled: false,
      want: { phase: 'RESOLVED', ready: ['False', 'Installed', 'installed, not started'], source: 'directory' },
    },
  ])('$name', ({ record: r, enabled, want }) => {
    const got = statusOf(r, enabled, undefined);
    expect(got.phase).toBe(want.phase);
    expect(got.conditions).toHaveLength(1);
    expect(got.conditions[0]).toMatchObject({
      type: 'Ready',
      status: want.ready[0],
      reason: want.ready[1],
      message: want.ready[2],
    });
    expect(got.loadLocation).toBe(FOLDER);
    expect(got.source).toBe(want.source ?? 'archive');
    expect(got.lastStartTime).toBe(want.lastStartTime);
  });

  it('keeps the Ready transition time while Ready keeps its status, and moves it when Ready changes', () => {
    const stillFalse = statusOf(record({ phase: 'STOPPED' }), false, previous('FAILED', 'False'));
    expect(stillFalse.conditions[0]!.lastTransitionTime).toBe(EARLIER);
    const nowTrue = statusOf(record({ phase: 'STARTED', startedAt: EARLIER }), true, previous('STARTING', 'Unknown'));
    expect(nowTrue.conditions[0]!.lastTransitionTime).not.toBe(EARLIER);
  });

  it('keeps fields the new status does not set, such as the last start time of a stopped plugin', () => {
    const before = { ...previous('STARTED', 'True'), lastStartTime: EARLIER };
    expect(statusOf(record({ phase: 'STOPPED' }), false, before).lastStartTime).toBe(EARLIER);
  });

  it('reports missing code and a start under way', () => {
    expect(codeMissingStatus('people', undefined)).toMatchObject({
      phase: 'FAILED',
      conditions: [
        { status: 'False', reason: 'CodeMissing', message: 'the code of plugin "people" is not on this server' },
      ],
    });
    expect(startingStatus(previous('STOPPED', 'False'))).toMatchObject({
      phase: 'STARTING',
      conditions: [{ status: 'Unknown', reason: 'Starting' }],
    });
  });

  describe('a failed upgrade (status.lastUpgrade)', () => {
    const OLD = 'a'.repeat(64);
    const NEW = 'b'.repeat(64);
    const failed: FailedUpgrade = {
      version: '2.0.0',
      archiveDigest: NEW,
      reason: 'UpgradeRolledBack',
      message: 'boom',
      at: EARLIER,
      rolledBackTo: { version: '1.0.0', archiveDigest: OLD },
    };
    const before = { ...previous('STARTED', 'True'), lastUpgrade: failed };

    it('stays while the code it rolled back to runs, stopped or started again', () => {
      const started = record({ phase: 'STARTED', digest: OLD, version: '1.0.0', startedAt: EARLIER });
      expect(statusOf(started, true, before)).toMatchObject({ version: '1.0.0', lastUpgrade: failed });
      expect(statusOf(record({ phase: 'STOPPED', digest: OLD }), false, before).lastUpgrade).toEqual(failed);
    });

    it('goes once other code starts', () => {
      const other = record({ phase: 'STARTED', digest: 'c'.repeat(64), version: '3.0.0', startedAt: EARLIER });
      const got = statusOf(other, true, before);
      expect(got.version).toBe('3.0.0');
      expect('lastUpgrade' in got).toBe(false);
    });

    it("is written by the replica that rolled back, beside the leader's fields, and cleared the same way", () => {
      const current: PluginStatus = { ...previous('STARTED', 'True'), version: '1.0.0', replicas: [] };
      const follower = { id: 'b', leads: () => false };
      const own: PluginStatus = { ...current, phase: 'STARTED', version: '1.0.0', lastUpgrade: failed };
      const written = replicaStatus(current, own, follower);
      expect(written.lastUpgrade).toEqual(failed);
      expect(written.replicas).toEqual([{ name: 'b', phase: 'STARTED', version: '1.0.0' }]);
      const { lastUpgrade: _gone, ...cleared } = { ...written, version: '3.0.0' };
      expect('lastUpgrade' in replicaStatus(written, cleared, follower)).toBe(false);
    });
  });
});
