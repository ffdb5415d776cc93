import {
  AGGREGATE_TO_LABEL_PREFIX,
  DEPENDENCIES_ANNOTATION,
  HIDDEN_LABEL,
  ROLE_TEMPLATE_LABEL,
  UI_PERMISSIONS_ANNOTATION,
} from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { aggregationIndex, expandRoles, type Role, validateRoleAnnotations } from './roles.js';
import type { PolicyRule } from './rules.js';

interface Spec {
  deps?: string[] | string;
  aggregateTo?: string[];
  ui?: string[] | string;
  labels?: Record<string, string>;
  rules?: PolicyRule[];
}
/** A role; `deps` and `ui` given as a string are written verbatim (to test malformed JSON). */
const role = (name: string, spec: Spec = {}): Role => {
  const annotations: Record<string, string> = {};
  const json = (v: string[] | string) => (typeof v === 'string' ? v : JSON.stringify(v));
  if (spec.deps !== undefined) annotations[DEPENDENCIES_ANNOTATION] = json(spec.deps);
  if (spec.ui !== undefined) annotations[UI_PERMISSIONS_ANNOTATION] = json(spec.ui);
  const labels: Record<string, string> = { ...spec.labels };
  for (const target of spec.aggregateTo ?? []) labels[`${AGGREGATE_TO_LABEL_PREFIX}${target}`] = 'true';
  const rules = spec.rules ?? [{ apiGroups: ['g'], resources: [name], verbs: ['get'] }];
  return { name, labels, annotations, rules };
};

const DEP = `/metadata/annotations/${DEPENDENCIES_ANNOTATION.replace('/', '~1')}`;
const UI = `/metadata/annotations/${UI_PERMISSIONS_ANNOTATION.replace('/', '~1')}`;

const cases: Array<{
  name: string;
  roles: Role[];
  start: string[];
  roleNames: string[];
  /** Where each expanded rule came from, in order: `role#index`. */
  rules?: string[];
  uiPermissions?: string[];
  /** How each role not started from was first reached: `role<-through:from`, in expansion order. */
  reachedBy?: string[];
  /** Validation errors expected per role (paths); every other role must validate cleanly. */
  errors?: Record<string, string[]>;
}> = [
  { name: 'nothing held, nothing expanded', roles: [role('a')], start: [], roleNames: [], rules: [] },
  {
    name: 'a role brings its own rules with their indexes',
    roles: [
      role('a', {
        rules: [
          { verbs: ['get'], nonResourceURLs: ['/x'] },
          { verbs: ['get'], nonResourceURLs: ['/y'] },
        ],
      }),
    ],
    start: ['a'],
    roleNames: ['a'],
    rules: ['a#0', 'a#1'],
  },
  {
    name: 'dependencies are followed transitively',
    roles: [role('a', { deps: ['b'] }), role('b', { deps: ['c'] }), role('c'), role('d')],
    start: ['a'],
    roleNames: ['a', 'b', 'c'],
    rules: ['a#0', 'b#0', 'c#0'],
    reachedBy: ['b<-dependency:a', 'c<-dependency:b'],
  },
  {
    name: 'aggregation one level',
    roles: [role('editor'), role('x', { aggregateTo: ['editor'] })],
    start: ['editor'],
    roleNames: ['editor', 'x'],
  },
  {
    name: 'aggregation two levels deep',
    roles: [role('editor'), role('x', { aggregateTo: ['editor'] }), role('y', { aggregateTo: ['x'] })],
    start: ['editor'],
    roleNames: ['editor', 'x', 'y'],
    rules: ['editor#0', 'x#0', 'y#0'],
  },
  {
    name: 'aggregation three levels deep',
    roles: [
      role('editor'),
      role('x', { aggregateTo: ['editor'] }),
      role('y', { aggregateTo: ['x'] }),
      role('z', { aggregateTo: ['y'] }),
    ],
    start: ['editor'],
    roleNames: ['editor', 'x', 'y', 'z'],
  },
  {
    name: 'an aggregated template brings its dependencies',
    roles: [role('editor'), role('p-manage', { aggregateTo: ['editor'], deps: ['p-view'] }), role('p-view')],
    start: ['editor'],
    roleNames: ['editor', 'p-manage', 'p-view'],
    reachedBy: ['p-manage<-aggregation:editor', 'p-view<-dependency:p-manage'],
  },
  {
    name: 'roles aggregated into a dependency join too',
    roles: [role('a', { deps: ['b'] }), role('b'), role('t', { aggregateTo: ['b'] })],
    start: ['a'],
    roleNames: ['a', 'b', 't'],
  },
  {
    name: 'a template aggregating into several roles joins each',
    roles: [role('editor'), role('author'), role('t', { aggregateTo: ['editor', 'author'] })],
    start: ['author'],
    roleNames: ['author', 't'],
  },
  {
    name: 'aggregation does not flow upwards',
    roles: [role('editor'), role('x', { aggregateTo: ['editor'] })],
    start: ['x'],
    roleNames: ['x'],
  },
  {
    name: 'aggregation label other than "true" is ignored',
    roles: [role('editor'), role('x', { labels: { [`${AGGREGATE_TO_LABEL_PREFIX}editor`]: 'false' } })],
    start: ['editor'],
    roleNames: ['editor'],
  },
  {
    name: 'dependency cycle is safe',
    roles: [role('a', { deps: ['b'] }), role('b', { deps: ['a'] })],
    start: ['a'],
    roleNames: ['a', 'b'],
    rules: ['a#0', 'b#0'],
  },
  {
    name: 'aggregation cycle is safe',
    roles: [role('a', { aggregateTo: ['b'] }), role('b', { aggregateTo: ['a'] })],
    start: ['a'],
    roleNames: ['a', 'b'],
  },
  {
    name: 'self dependency is safe',
    roles: [role('a', { deps: ['a'] })],
    start: ['a'],
    roleNames: ['a'],
    rules: ['a#0'],
  },
  {
    name: 'missing roles are skipped',
    roles: [role('a', { deps: ['gone'] })],
    start: ['ghost', 'a'],
    roleNames: ['a'],
  },
  {
    name: 'a role held twice counts once',
    roles: [role('a'), role('b', { deps: ['a'] })],
    start: ['a', 'b', 'a'],
    roleNames: ['a', 'b'],
    rules: ['a#0', 'b#0'],
  },
  {
    name: 'ui permissions are the union over all roles',
    roles: [
      role('a', { deps: ['b'], ui: ['plugin:people:view'] }),
      role('b', { ui: ['plugin:people:view', 'plugin:people:manage'] }),
    ],
    start: ['a'],
    roleNames: ['a', 'b'],
    uiPermissions: ['plugin:people:view', 'plugin:people:manage'],
  },
  {
    name: 'ui permissions of aggregated templates count',
    roles: [role('anonymous'), role('t', { aggregateTo: ['anonymous'], ui: ['plugin:people:public'] })],
    start: ['anonymous'],
    roleNames: ['anonymous', 't'],
    uiPermissions: ['plugin:people:public'],
  },
  {
    name: 'hidden templates still contribute rules',
    roles: [
      role('anonymous'),
      role('t', { aggregateTo: ['anonymous'], labels: { [HIDDEN_LABEL]: 'true', [ROLE_TEMPLATE_LABEL]: 'true' } }),
    ],
    start: ['anonymous'],
    roleNames: ['anonymous', 't'],
    rules: ['anonymous#0', 't#0'],
  },
  {
    name: 'malformed dependencies JSON is ignored and reported',
    roles: [role('a', { deps: '["b"' }), role('b')],
    start: ['a'],
    roleNames: ['a'],
    errors: { a: [DEP] },
  },
  {
    name: 'dependencies that are not an array are ignored and reported',
    roles: [role('a', { deps: '"b"' }), role('b')],
    start: ['a'],
    roleNames: ['a'],
    errors: { a: [DEP] },
  },
  {
    name: 'dependencies with a non-string are ignored and reported',
    roles: [role('a', { deps: '["b", 1]' }), role('b')],
    start: ['a'],
    roleNames: ['a'],
    errors: { a: [DEP] },
  },
  {
    name: 'malformed ui permissions are ignored and reported',
    roles: [role('a', { ui: 'plugin:x', deps: [''] })],
    start: ['a'],
    roleNames: ['a'],
    uiPermissions: [],
    errors: { a: [DEP, UI] },
  },
  {
    name: 'aggregate-to label without a target is reported',
    roles: [role('a', { labels: { [AGGREGATE_TO_LABEL_PREFIX]: 'true' } })],
    start: ['a'],
    roleNames: ['a'],
    errors: { a: [`/metadata/labels/${AGGREGATE_TO_LABEL_PREFIX.replace('/', '~1')}`] },
  },
];

describe('expandRoles', () => {
  it.each(cases)('$name', ({ roles, start, roleNames, rules, uiPermissions, reachedBy, errors }) => {
    const map = new Map(roles.map((r) => [r.name, r]));
    const expanded = expandRoles(start, map);
    expect([...expanded.roleNames].sort()).toEqual([...roleNames].sort());
    if (rules !== undefined) expect(expanded.rules.map((r) => `${r.role}#${r.index}`)).toEqual(rules);
    if (uiPermissions !== undefined) expect([...expanded.uiPermissions].sort()).toEqual([...uiPermissions].sort());
    if (reachedBy !== undefined) {
      const how = [...expanded.reachedBy].map(([name, by]) => `${name}<-${by.through}:${by.from}`);
      expect(how).toEqual(reachedBy);
    }
    for (const name of start) expect(expanded.reachedBy.has(name)).toBe(false);
    // A precomputed aggregation index gives the same answer.
    expect(expandRoles(start, map, aggregationIndex(map))).toEqual(expanded);
    for (const r of roles) {
      expect(
        validateRoleAnnotations(r).map((e) => e.path),
        r.name,
      ).toEqual(errors?.[r.name] ?? []);
    }
  });
});
