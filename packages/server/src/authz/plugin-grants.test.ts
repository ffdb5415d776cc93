import { AGGREGATE_TO_LABEL_PREFIX, DEPENDENCIES_ANNOTATION, PLUGIN_NAME_LABEL } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { bindingProblems, type PluginScope, roleProblems, ruleProblems, urlIsOwned } from './plugin-grants.js';
import type { Role } from './roles.js';
import type { PolicyRule } from './rules.js';

const scope: PluginScope = {
  plugin: 'people',
  groups: [
    'people.svc.run',
    'console.api.people.svc.run',
    'uc.api.people.svc.run',
    'api.people.svc.run',
    'people.example.com',
  ],
};
const role = (name: string, extra: Partial<Role> = {}): Role => ({
  name,
  labels: {},
  annotations: {},
  rules: [],
  ...extra,
});
const owned = (name: string, owner: string) => role(name, { labels: { [PLUGIN_NAME_LABEL]: owner } });
const roles = new Map<string, Role>(
  [
    role('super-role'),
    role('anonymous'),
    role('editor'),
    role('role-template-manage-users'),
    role('admins'),
    owned('people-role-view-persons', 'people'),
    owned('notes-role-view-notes', 'notes'),
  ].map((r) => [r.name, r]),
);
const aggregateTo = (target: string) => ({ [`${AGGREGATE_TO_LABEL_PREFIX}${target}`]: 'true' });
const dependsOn = (...names: string[]) => ({ [DEPENDENCIES_ANNOTATION]: JSON.stringify(names) });

const ruleCases: Array<{ name: string; rule: PolicyRule; want: string[] }> = [
  {
    name: 'its own model group',
    rule: { apiGroups: ['people.svc.run'], resources: ['people/persons'], verbs: ['*'] },
    want: [],
  },
  {
    name: 'every resource of its own groups',
    rule: { apiGroups: ['api.people.svc.run', 'console.api.people.svc.run'], resources: ['*'], verbs: ['get'] },
    want: [],
  },
  {
    name: 'a domain it serves',
    rule: { apiGroups: ['people.example.com'], resources: ['cards'], verbs: ['get'] },
    want: [],
  },
  {
    name: 'every group',
    rule: { apiGroups: ['*'], resources: ['people/persons'], verbs: ['get'] },
    want: ['apiGroups "*" reaches every API group'],
  },
  {
    name: 'the core group',
    rule: { apiGroups: [''], resources: ['users'], verbs: ['get'] },
    want: ['apiGroup "" is not a group plugin "people" owns'],
  },
  {
    name: 'a service group',
    rule: { apiGroups: ['api.console.svc.run'], resources: ['users/password'], verbs: ['update'] },
    want: ['apiGroup "api.console.svc.run" is not a group plugin "people" owns'],
  },
  {
    name: "another plugin's group",
    rule: { apiGroups: ['people.svc.run', 'notes.svc.run'], resources: ['*'], verbs: ['get'] },
    want: ['apiGroup "notes.svc.run" is not a group plugin "people" owns'],
  },
  {
    name: 'a domain it does not serve',
    rule: { apiGroups: ['example.org'], resources: ['*'], verbs: ['get'] },
    want: ['apiGroup "example.org" is not a group plugin "people" owns'],
  },
  {
    name: 'deep paths of its own routes',
    rule: { nonResourceURLs: ['/apis/console.api.people.svc.run/v1alpha1/a/b/c/*'], verbs: ['get'] },
    want: [],
  },
  {
    name: 'every URL',
    rule: { nonResourceURLs: ['*'], verbs: ['get'] },
    want: ['nonResourceURL "*" is not below /apis/<group>/ of a group plugin "people" owns'],
  },
  {
    name: 'a service URL',
    rule: { nonResourceURLs: ['/login'], verbs: ['post'] },
    want: ['nonResourceURL "/login" is not below /apis/<group>/ of a group plugin "people" owns'],
  },
];

const urlCases: Array<[string, boolean]> = [
  ['/apis/people.svc.run', true],
  ['/apis/people.svc.run/*', true],
  ['/apis/people.svc.run/v1alpha1/x/y/z/w', true],
  ['/apis/people.svc.run*', false], // would also match /apis/people.svc.run.evil.com/…
  ['/apis/people.svc.run.evil.com/x', false],
  ['/apis/people.svc.run/../../api/v1alpha1/users', false],
  ['/apis/people.svc.run/%2e%2e/x', false],
  ['/apis/people.svc.run/*/x', false],
  ['/apis/*', false],
  ['/apis', false],
  ['/healthz', false],
];

const roleCases: Array<{ name: string; role: Role; want: string[] }> = [
  {
    name: "the seed's public template: own rules aggregated into anonymous",
    role: role('people-role-public', {
      labels: aggregateTo('anonymous'),
      rules: [{ apiGroups: ['api.people.svc.run'], resources: ['people/persons'], verbs: ['get', 'list'] }],
    }),
    want: [],
  },
  {
    name: 'own rules aggregated into editor',
    role: role('people-role-edit', { labels: aggregateTo('editor') }),
    want: [],
  },
  {
    name: 'depending on its own template',
    role: role('people-role-manage-persons', { annotations: dependsOn('people-role-view-persons') }),
    want: [],
  },
  {
    name: 'depending on a role not created yet',
    role: role('people-role-manage-persons', { annotations: dependsOn('people-role-later') }),
    want: ['it depends on role "people-role-later", which does not exist'],
  },
  {
    name: 'aggregating into a role not created yet',
    role: role('people-role-extra', { labels: aggregateTo('people-fans') }),
    want: [],
  },
  {
    name: 'aggregating into its own template',
    role: role('people-role-extra', { labels: aggregateTo('people-role-view-persons') }),
    want: [],
  },
  {
    name: 'depending on super-role',
    role: role('people-role-x', { annotations: dependsOn('super-role') }),
    want: ['it depends on super-role, which nothing may reach'],
  },
  {
    name: 'aggregating into super-role',
    role: role('people-role-x', { labels: aggregateTo('super-role') }),
    want: ['it aggregates into super-role, which nothing may reach'],
  },
  {
    name: "the issue's attack: super-role into anonymous",
    role: role('people-role-x', { labels: aggregateTo('anonymous'), annotations: dependsOn('super-role') }),
    want: ['it depends on super-role, which nothing may reach'],
  },
  {
    name: 'depending on a built-in role',
    role: role('people-role-x', { annotations: dependsOn('editor') }),
    want: ['it depends on role "editor", which is not a role of plugin "people"'],
  },
  {
    name: 'depending on a core template',
    role: role('people-role-x', { annotations: dependsOn('role-template-manage-users') }),
    want: ['it depends on role "role-template-manage-users", which is not a role of plugin "people"'],
  },
  {
    name: "depending on another plugin's template",
    role: role('people-role-x', { annotations: dependsOn('notes-role-view-notes') }),
    want: ['it depends on role "notes-role-view-notes", which is not a role of plugin "people"'],
  },
  {
    name: "aggregating into an administrator's role",
    role: role('people-role-x', { labels: aggregateTo('admins') }),
    want: ['it aggregates into role "admins", which is not a role of plugin "people"'],
  },
  {
    name: 'aggregating into a core template',
    role: role('people-role-x', { labels: aggregateTo('role-template-manage-users') }),
    want: ['it aggregates into role "role-template-manage-users", which is not a role of plugin "people"'],
  },
  {
    name: 'foreign rules are reported by index',
    role: role('people-role-x', {
      rules: [
        { apiGroups: ['people.svc.run'], resources: ['*'], verbs: ['*'] },
        { apiGroups: [''], resources: ['users'], verbs: ['get'] },
      ],
    }),
    want: ['rules[1]: apiGroup "" is not a group plugin "people" owns'],
  },
];

const bindingCases: Array<[string, string[]]> = [
  ['people-role-view-persons', []],
  ['super-role', ['it binds role "super-role", which is not a role of plugin "people"']],
  ['editor', ['it binds role "editor", which is not a role of plugin "people"']],
  ['notes-role-view-notes', ['it binds role "notes-role-view-notes", which is not a role of plugin "people"']],
  ['people-role-missing', ['it binds role "people-role-missing", which is not a role of plugin "people"']],
];

describe('what a plugin may grant', () => {
  it.each(ruleCases)('rule: $name', ({ rule, want }) => expect(ruleProblems(scope, rule)).toEqual(want));
  it.each(urlCases)('non-resource URL %s owned: %s', (url, want) => expect(urlIsOwned(scope, url)).toBe(want));
  it.each(roleCases)('role: $name', ({ role: r, want }) => expect(roleProblems(scope, r, roles)).toEqual(want));
  it.each(bindingCases)('binding to %s', (name, want) => expect(bindingProblems(scope, name, roles)).toEqual(want));
});
