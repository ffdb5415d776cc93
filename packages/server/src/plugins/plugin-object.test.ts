import { describe, expect, it } from 'vitest';
import { pluginObjectProblem, readPluginObject } from './plugin-object.js';

const spec = { version: '1.0.0', requires: '>=0.1.0', main: 'dist/index.js', enabled: true };
const plugin = { apiVersion: 'plugin.svc.run/v1alpha1', kind: 'Plugin', metadata: { name: 'people' }, spec };

describe('reading an object as a Plugin', () => {
  it.each([
    { name: 'a stored Plugin', given: plugin, want: undefined },
    {
      name: 'a Plugin with status',
      given: { ...plugin, status: { phase: 'STARTED', conditions: [] } },
      want: undefined,
    },
    { name: 'nothing', given: undefined, want: 'it is not a mapping' },
    { name: 'an array', given: [plugin], want: 'it is not a mapping' },
    { name: 'another kind', given: { ...plugin, kind: 'Person' }, want: 'it is a Person of plugin.svc.run/v1alpha1' },
    {
      name: 'another version',
      given: { ...plugin, apiVersion: 'plugin.svc.run/v2' },
      want: 'it is a Plugin of plugin.svc.run/v2',
    },
    { name: 'no name', given: { ...plugin, metadata: {} }, want: 'metadata.name is missing' },
    { name: 'no spec', given: { ...plugin, spec: undefined }, want: 'spec is missing' },
    {
      name: 'enabled as a string',
      given: { ...plugin, spec: { ...spec, enabled: 'true' } },
      want: 'spec.enabled is not a boolean',
    },
    {
      name: 'no version',
      given: { ...plugin, spec: { ...spec, version: undefined } },
      want: 'spec.version is not a string',
    },
    { name: 'main as a number', given: { ...plugin, spec: { ...spec, main: 1 } }, want: 'spec.main is not a string' },
    { name: 'status as a list', given: { ...plugin, status: [] }, want: 'status is not a mapping' },
  ])('$name', ({ given, want }) => expect(pluginObjectProblem(given)).toBe(want));

  it('hands back the same object, typed, or throws naming the problem', () => {
    expect(readPluginObject(plugin)).toBe(plugin);
    expect(() => readPluginObject({ ...plugin, spec: {} })).toThrow(
      'not a Plugin object: spec.enabled is not a boolean',
    );
  });
});
