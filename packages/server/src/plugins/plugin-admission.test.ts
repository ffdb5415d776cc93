import { type ExtensionObject, isApiError, type PluginManifest } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../registry/admission.js';
import {
  admitPluginWrite,
  checkDependenciesInstalled,
  checkUpgrade,
  type InstalledPlugins,
  type PluginWrite,
} from './plugin-admission.js';
import { runningDependents, unmetDependencies } from './plugin-dependencies.js';
import type { PluginRecord } from './plugin-host.js';

const FINALIZER = 'plugin.svc.run/uninstall';
const START_REQUEST = 'plugin.svc.run/start-requested';
const USER: Actor = { kind: 'user', principal: { username: 'ann', via: 'session' } };
const PLUGIN: Actor = { kind: 'plugin', plugin: 'blog' };
const SYSTEM: Actor = { kind: 'system' };
/** A user who is not a super administrator. */
const OTHER: Actor = { kind: 'user', principal: { username: 'bob', via: 'session' } };
/** "ann" is a super administrator: she may run plugin code. */
const mayRunCode = (actor: Actor) => actor.kind === 'user' && actor.principal.username === 'ann';

const people = (
  spec: Record<string, unknown> = {},
  metadata: Partial<ExtensionObject['metadata']> = {},
): ExtensionObject => ({
  apiVersion: 'plugin.svc.run/v1alpha1',
  kind: 'Plugin',
  metadata: { name: 'people', finalizers: [FINALIZER], ...metadata },
  spec: { version: '1.0.0', requires: '>=0.1.0', main: 'dist/index.js', enabled: true, ...spec },
});

/** The reason of the ApiError thrown, 'admitted' when none is, or the message of anything else. */
function outcome(check: () => void): string {
  try {
    check();
    return 'admitted';
  } catch (error) {
    return isApiError(error) ? error.reason : `not an ApiError: ${String(error)}`;
  }
}

describe('writes of Plugin objects', () => {
  const update = (actor: Actor, prevObject: ExtensionObject, object: ExtensionObject): PluginWrite => ({
    operation: 'update',
    actor,
    prevObject,
    object,
  });
  it.each([
    {
      name: 'svc installs',
      write: { operation: 'create', actor: SYSTEM, object: people() },
      dependents: [],
      want: 'admitted',
    },
    {
      name: 'a user cannot create one',
      write: { operation: 'create', actor: USER, object: people() },
      dependents: [],
      want: 'MethodNotAllowed',
    },
    {
      name: 'a plugin cannot create one',
      write: { operation: 'create', actor: PLUGIN, object: people() },
      dependents: [],
      want: 'MethodNotAllowed',
    },
    {
      name: 'a user cannot write status',
      write: { ...update(USER, people(), people()), subresource: 'status' },
      dependents: [],
      want: 'Forbidden',
    },
    {
      name: 'svc writes status',
      write: { ...update(SYSTEM, people(), people()), subresource: 'status' },
      dependents: [],
      want: 'admitted',
    },
    {
      name: 'a user uninstalls one nothing requires',
      write: { operation: 'delete', actor: USER, object: people(), prevObject: people() },
      dependents: [],
      want: 'admitted',
    },
    {
      name: 'a user cannot uninstall one running plugins require',
      write: { operation: 'delete', actor: USER, object: people(), prevObject: people() },
      dependents: ['blog'],
      want: 'Conflict',
    },
    {
      name: 'a user enables one',
      write: update(USER, people({ enabled: false }), people({ enabled: true })),
      dependents: [],
      want: 'admitted',
    },
    {
      name: 'a user who is not a super administrator cannot enable one',
      write: update(OTHER, people({ enabled: false }), people({ enabled: true })),
      dependents: [],
      want: 'Forbidden',
    },
    {
      name: 'a plugin cannot enable one',
      write: update(PLUGIN, people({ enabled: false }), people({ enabled: true })),
      dependents: [],
      want: 'Forbidden',
    },
    {
      name: 'a super administrator asks for another start',
      write: update(USER, people(), people({}, { annotations: { [START_REQUEST]: 'now' } })),
      dependents: [],
      want: 'admitted',
    },
    {
      name: 'a user who is not a super administrator cannot ask for another start',
      write: update(OTHER, people(), people({}, { annotations: { [START_REQUEST]: 'now' } })),
      dependents: [],
      want: 'Forbidden',
    },
    {
      name: 'nor take a start request away',
      write: update(OTHER, people({}, { annotations: { [START_REQUEST]: 'then' } }), people()),
      dependents: [],
      want: 'Forbidden',
    },
    {
      name: 'a user cannot change the archive wanted',
      write: update(USER, people({ archiveDigest: 'a'.repeat(64) }), people({ archiveDigest: 'b'.repeat(64) })),
      dependents: [],
      want: 'Invalid',
    },
    {
      name: 'a user who is not a super administrator may disable one',
      write: update(OTHER, people(), people({ enabled: false })),
      dependents: [],
      want: 'admitted',
    },
    {
      name: 'a user disables one nothing requires',
      write: update(USER, people(), people({ enabled: false })),
      dependents: [],
      want: 'admitted',
    },
    {
      name: 'a user cannot disable one running plugins require',
      write: update(USER, people(), people({ enabled: false })),
      dependents: ['blog'],
      want: 'Conflict',
    },
    {
      name: 'a user may relabel one running plugins require',
      write: update(USER, people(), people({}, { labels: { team: 'a' } })),
      dependents: ['blog'],
      want: 'admitted',
    },
    {
      name: 'a user cannot change its version',
      write: update(USER, people(), people({ version: '2.0.0' })),
      dependents: [],
      want: 'Invalid',
    },
    {
      name: 'a user cannot add a manifest field',
      write: update(USER, people(), people({ displayName: 'People' })),
      dependents: [],
      want: 'Invalid',
    },
    {
      name: 'a user cannot remove its finalizer',
      write: update(USER, people(), people({}, { finalizers: [] })),
      dependents: [],
      want: 'Invalid',
    },
    {
      name: 'svc changes its version (an upgrade)',
      write: update(SYSTEM, people(), people({ version: '2.0.0' })),
      dependents: [],
      want: 'admitted',
    },
    {
      name: 'svc removes its finalizer',
      write: update(SYSTEM, people(), people({}, { finalizers: [] })),
      dependents: ['blog'],
      want: 'admitted',
    },
  ] satisfies Array<{ name: string; write: PluginWrite; dependents: string[]; want: string }>)(
    '$name: $want',
    ({ write, dependents, want }) => {
      expect(outcome(() => admitPluginWrite(write, (name) => (name === 'people' ? dependents : []), mayRunCode))).toBe(
        want,
      );
    },
  );

  it('names every manifest field a user changed, each at its path', () => {
    try {
      admitPluginWrite(
        update(USER, people(), people({ version: '2.0.0', main: 'other.js', enabled: false })),
        () => [],
        mayRunCode,
      );
      expect.unreachable();
    } catch (error) {
      expect(isApiError(error) && error.errors).toEqual([
        { path: '/spec/version', message: 'is set from plugin.yaml' },
        { path: '/spec/main', message: 'is set from plugin.yaml' },
      ]);
    }
  });
});

describe('install and upgrade checks', () => {
  const manifest = (name: string, version: string, requires: Record<string, string> = {}): PluginManifest => ({
    apiVersion: 'plugin.svc.run/v1alpha1',
    kind: 'Plugin',
    metadata: { name },
    spec: { version, requires: '*', main: 'index.js', pluginDependencies: requires },
  });
  const record = (m: PluginManifest, source: PluginRecord['source'] = 'archive'): PluginRecord => ({
    name: m.metadata.name,
    folder: `/plugins/${m.metadata.name}`,
    source,
    manifest: m,
  });
  /** A host with these records, all of them running. */
  const hostOf = (...records: PluginRecord[]): InstalledPlugins => {
    const byName = new Map(records.map((r) => [r.name, r]));
    const isRunning = (name: string) => byName.has(name);
    return {
      get: (name) => byName.get(name),
      runningDependents: (name) => runningDependents(name, byName.values(), isRunning),
      unmetDependencies: (m, options) => unmetDependencies(m.spec, byName, isRunning, options),
    };
  };
  const people1 = record(manifest('people', '1.2.0'));
  const blog = record(manifest('blog', '1.0.0', { people: '^1.0.0' }));

  it.each([
    {
      name: 'an install needing nothing',
      check: () => checkDependenciesInstalled(hostOf(), manifest('people', '1.0.0')),
      want: 'admitted',
    },
    {
      name: 'an install needing an installed plugin',
      check: () => checkDependenciesInstalled(hostOf(people1), manifest('blog', '1.0.0', { people: '^1.0.0' })),
      want: 'admitted',
    },
    {
      name: 'an install needing a missing plugin',
      check: () => checkDependenciesInstalled(hostOf(), manifest('blog', '1.0.0', { people: '^1.0.0' })),
      want: 'Conflict',
    },
    {
      name: 'an install needing another version',
      check: () => checkDependenciesInstalled(hostOf(people1), manifest('blog', '1.0.0', { people: '^2.0.0' })),
      want: 'Conflict',
    },
    {
      name: 'an upgrade its dependents accept',
      check: () => checkUpgrade(hostOf(people1, blog), 'people', manifest('people', '1.9.0')),
      want: 'admitted',
    },
    {
      name: 'an upgrade a running dependent refuses',
      check: () => checkUpgrade(hostOf(people1, blog), 'people', manifest('people', '2.0.0')),
      want: 'Conflict',
    },
    {
      name: 'an upgrade of a folder of SVC_PLUGINS_DIR',
      check: () =>
        checkUpgrade(hostOf(record(manifest('people', '1.0.0'), 'directory')), 'people', manifest('people', '1.1.0')),
      want: 'Conflict',
    },
    {
      name: 'an upgrade needing a missing plugin',
      check: () => checkUpgrade(hostOf(people1), 'people', manifest('people', '1.3.0', { search: '^1.0.0' })),
      want: 'Conflict',
    },
  ])('$name: $want', ({ check, want }) => expect(outcome(check)).toBe(want));

  it('says what is missing and what to do', () => {
    expect(() =>
      checkDependenciesInstalled(hostOf(), manifest('blog', '1.0.0', { people: '^1.0.0', search: '*' })),
    ).toThrow('plugin "blog" requires people@^1.0.0, search@*, not installed; install them first');
    expect(() => checkUpgrade(hostOf(people1, blog), 'people', manifest('people', '2.0.0'))).toThrow(
      'running plugin "blog" requires people@^1.0.0, which 2.0.0 is not',
    );
  });
});
