import { describe, expect, it } from 'vitest';
import { type DependencyNode, runningDependents, startOrder, unmetDependencies } from './plugin-dependencies.js';

const node = (name: string, version: string, requires: Record<string, string> = {}): DependencyNode => ({
  name,
  manifest: { spec: { version, pluginDependencies: requires } },
});
const recordsOf = (...nodes: DependencyNode[]) => new Map(nodes.map((n) => [n.name, n]));

describe('start order', () => {
  it.each([
    {
      name: 'names in order when nothing is required',
      given: [node('c', '1.0.0'), node('a', '1.0.0'), node('b', '1.0.0')],
      want: ['a', 'b', 'c'],
    },
    { name: 'a required plugin first', given: [node('a', '1.0.0', { z: '*' }), node('z', '1.0.0')], want: ['z', 'a'] },
    {
      name: 'transitively',
      given: [node('a', '1.0.0', { b: '*' }), node('b', '1.0.0', { c: '*' }), node('c', '1.0.0')],
      want: ['c', 'b', 'a'],
    },
    {
      name: 'a requirement not installed is skipped',
      given: [node('b', '1.0.0', { missing: '*' }), node('a', '1.0.0')],
      want: ['a', 'b'],
    },
    {
      name: 'a cycle keeps name order from where it is entered',
      given: [node('a', '1.0.0', { b: '*' }), node('b', '1.0.0', { a: '*' })],
      want: ['b', 'a'],
    },
  ])('$name', ({ given, want }) => expect(startOrder(recordsOf(...given))).toEqual(want));
});

describe('unmet dependencies', () => {
  const records = recordsOf(node('people', '1.4.0'), node('search', '2.1.0'));
  const running =
    (...names: string[]) =>
    (name: string) =>
      names.includes(name);

  interface Case {
    name: string;
    requires: Record<string, string>;
    running: string[];
    installedOnly: boolean;
    want: string[];
  }
  it.each<Case>([
    {
      name: 'installed and running in range',
      requires: { people: '^1.0.0' },
      running: ['people'],
      installedOnly: false,
      want: [],
    },
    {
      name: 'installed, not running',
      requires: { people: '^1.0.0' },
      running: [],
      installedOnly: false,
      want: ['people@^1.0.0'],
    },
    {
      name: 'installed, not running, installed is enough',
      requires: { people: '^1.0.0' },
      running: [],
      installedOnly: true,
      want: [],
    },
    {
      name: 'running out of range',
      requires: { people: '^2.0.0' },
      running: ['people'],
      installedOnly: false,
      want: ['people@^2.0.0'],
    },
    {
      name: 'out of range, installed only',
      requires: { search: '~2.0.0' },
      running: [],
      installedOnly: true,
      want: ['search@~2.0.0'],
    },
    { name: 'not installed', requires: { wiki: '*' }, running: ['people'], installedOnly: true, want: ['wiki@*'] },
    {
      name: 'several, in declaration order',
      requires: { wiki: '*', people: '^1.0.0', search: '^2.0.0' },
      running: ['search'],
      installedOnly: false,
      want: ['wiki@*', 'people@^1.0.0'],
    },
  ])('$name', ({ requires, running: names, installedOnly, want }) => {
    expect(
      unmetDependencies({ version: '1.0.0', pluginDependencies: requires }, records, running(...names), {
        installedOnly,
      }),
    ).toEqual(want);
  });

  it('needs nothing for a plugin without requirements', () => {
    expect(unmetDependencies({ version: '1.0.0' }, records, () => false)).toEqual([]);
  });
});

describe('running dependents', () => {
  const records = [
    node('blog', '1.0.0', { people: '^1' }),
    node('shop', '1.0.0', { people: '*' }),
    node('wiki', '1.0.0', { search: '*' }),
  ];

  it.each([
    { of: 'people', running: ['blog', 'shop', 'wiki'], want: ['blog', 'shop'] },
    { of: 'people', running: ['shop'], want: ['shop'] },
    { of: 'people', running: [], want: [] },
    { of: 'search', running: ['blog', 'wiki'], want: ['wiki'] },
  ])('of $of with $running running: $want', ({ of, running, want }) => {
    expect(runningDependents(of, records, (name) => running.includes(name))).toEqual(want);
  });
});
