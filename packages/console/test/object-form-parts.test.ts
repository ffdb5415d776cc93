import { describe, expect, it } from 'vitest';
import en from '../src/i18n/en.js';
import { factsOf, type Plugin } from '../src/plugin-admin/plugin.js';
import { labelsOfText, labelsTextOf } from '../src/resources/labels-text.js';
import { objectForm, pointersOf } from '../src/resources/schema-fields.js';

describe('the object form and plugin page, pure parts', () => {
  it.each([
    { text: 'app=web\ntier=db', labels: { app: 'web', tier: 'db' } },
    { text: ' app = web \n\n', labels: { app: 'web' } },
    { text: 'flag', labels: { flag: '' } },
    { text: 'a=b=c', labels: { a: 'b=c' } },
    { text: '', labels: {} },
    { text: undefined, labels: {} },
  ])('reads labels from "$text"', ({ text, labels }) => {
    expect(labelsOfText(text)).toEqual(labels);
  });

  it('writes labels one per line, and reads them back', () => {
    const labels = { app: 'web', 'people.example.com/team': 'a' };
    expect(labelsTextOf(labels)).toBe('app=web\npeople.example.com/team=a');
    expect(labelsOfText(labelsTextOf(labels))).toEqual(labels);
    expect(labelsTextOf(undefined)).toBe('');
  });

  it("names every field's pointer, nested ones included", () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { name: { type: 'string' }, a: { type: 'object', properties: { b: {} } } },
        },
      },
    };
    expect(pointersOf(objectForm(schema, false))).toEqual(['/spec', '/spec/name', '/spec/a', '/spec/a/b']);
  });

  it.each([
    {
      name: 'a plugin from a folder, with dependencies',
      spec: {
        version: '1.0.0',
        requires: '>=0.1.0',
        main: 'dist/index.js',
        enabled: true,
        pluginDependencies: { a: '^1' },
      },
      status: { source: 'directory' as const },
      want: [
        ['Name', 'demo'],
        ['Version', '1.0.0'],
        ['Requires svc', '>=0.1.0'],
        ['Entry module', 'dist/index.js'],
        ['Depends on', 'a ^1'],
        ['Enabled', 'Yes'],
        ['Installed from', 'a plugins folder'],
      ],
    },
    {
      name: 'an uploaded, disabled plugin with an author',
      spec: {
        version: '2.0.0',
        requires: '*',
        main: 'main.js',
        enabled: false,
        author: { name: 'Ada' },
        ui: 'ui/main.js',
      },
      status: { source: 'archive' as const },
      want: [
        ['Name', 'demo'],
        ['Version', '2.0.0'],
        ['Requires svc', '*'],
        ['Author', 'Ada'],
        ['Entry module', 'main.js'],
        ['Console UI bundle', 'ui/main.js'],
        ['Depends on', 'No other plugin'],
        ['Enabled', 'No'],
        ['Installed from', 'an uploaded archive'],
      ],
    },
    {
      name: 'a running plugin whose upgrade was rolled back',
      spec: { version: '1.0.0', requires: '*', main: 'main.js', enabled: true },
      status: { source: 'archive' as const, phase: 'STARTED' as const, version: '1.0.0' },
      want: [
        ['Name', 'demo'],
        ['Version', '1.0.0'],
        ['Version running', '1.0.0'],
        ['Requires svc', '*'],
        ['Entry module', 'main.js'],
        ['Depends on', 'No other plugin'],
        ['Enabled', 'Yes'],
        ['Installed from', 'an uploaded archive'],
      ],
    },
  ])('says the facts of $name', ({ spec, status, want }) => {
    const plugin = {
      apiVersion: 'plugin.svc.run/v1alpha1',
      kind: 'Plugin',
      metadata: { name: 'demo' },
      spec,
      status: { phase: 'STOPPED', conditions: [], ...status },
    } as Plugin;
    // The English words of a message key, as the console's `t` gives them.
    const english = (key: string) =>
      key.split('.').reduce<unknown>((tree, part) => (tree as never)[part], en) as string;
    expect(factsOf(plugin, english)).toEqual(want);
  });
});
