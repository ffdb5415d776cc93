import { AGGREGATE_TO_LABEL_PREFIX, DEPENDENCIES_ANNOTATION } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import {
  atomicRules,
  canBind,
  canWriteRole,
  confirmNoEscalation,
  type EscalationResult,
  missingDependencies,
} from './escalation.js';
import { expandRoles, type Role } from './roles.js';
import type { PolicyRule } from './rules.js';

const P = 'people.svc.run';
const role = (name: string, rules: PolicyRule[], extra: Partial<Role> = {}): [string, Role] => [
  name,
  { name, labels: {}, annotations: {}, rules, ...extra },
];
const roles = new Map<string, Role>([
  role('super-role', [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]),
  role('viewer', [{ verbs: ['get', 'list'], apiGroups: [P], resources: ['persons'] }]),
  role('writer', [{ verbs: ['update', 'delete'], apiGroups: [P], resources: ['persons'] }], {
    annotations: { [DEPENDENCIES_ANNOTATION]: '["viewer"]' },
  }),
  role('ann-only', [{ verbs: ['get', 'update'], apiGroups: [P], resources: ['persons'], resourceNames: ['ann'] }]),
  role('status-any', [{ verbs: ['update'], apiGroups: [P], resources: ['*/status'] }]),
  role('assets', [{ verbs: ['get'], nonResourceURLs: ['/assets/*', '/healthz'] }]),
  role('editor', [{ verbs: ['get', 'list'], apiGroups: [P], resources: ['persons'] }]),
  // As the service defines it (rbac/built-in-roles.ts): plugin code runs with the server's rights.
  role('role-template-manage-plugins', [{ verbs: ['*'], apiGroups: ['plugin.svc.run'], resources: ['plugins'] }], {
    annotations: { [DEPENDENCIES_ANNOTATION]: '["super-role"]' },
  }),
  role('plugin-rules', [{ verbs: ['*'], apiGroups: ['plugin.svc.run'], resources: ['plugins'] }]),
  role('editor-extra', [{ verbs: ['create'], apiGroups: [P], resources: ['persons'] }], {
    labels: { [`${AGGREGATE_TO_LABEL_PREFIX}editor`]: 'true' },
  }),
]);

type Check = { grant: PolicyRule[] } | { bind: string } | { write: Role };
const cases: Array<{ name: string; held: string[]; check: Check; want: EscalationResult }> = [
  // rules written into a role
  {
    name: 'a subset of held rules may be granted',
    held: ['viewer'],
    check: { grant: [{ verbs: ['get'], apiGroups: [P], resources: ['persons'] }] },
    want: { ok: true },
  },
  {
    name: 'narrowing with resourceNames is allowed',
    held: ['writer'],
    check: { grant: [{ verbs: ['update'], apiGroups: [P], resources: ['persons'], resourceNames: ['ann', 'bob'] }] },
    want: { ok: true },
  },
  {
    name: 'atoms may be covered by different held rules',
    held: ['writer'],
    check: { grant: [{ verbs: ['get', 'delete'], apiGroups: [P], resources: ['persons'] }] },
    want: { ok: true },
  },
  { name: 'an empty grant is always allowed', held: [], check: { grant: [] }, want: { ok: true } },
  {
    name: 'super-role may grant everything',
    held: ['super-role'],
    check: { grant: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] },
    want: { ok: true },
  },
  {
    name: '* verbs are refused to one holding get and list',
    held: ['viewer'],
    check: { grant: [{ verbs: ['*'], apiGroups: [P], resources: ['persons'] }] },
    want: { ok: false, missing: [{ verbs: ['*'], apiGroups: [P], resources: ['persons'] }] },
  },
  {
    name: '* groups are refused',
    held: ['viewer'],
    check: { grant: [{ verbs: ['get'], apiGroups: ['*'], resources: ['persons'] }] },
    want: { ok: false, missing: [{ verbs: ['get'], apiGroups: ['*'], resources: ['persons'] }] },
  },
  {
    name: '* resources are refused',
    held: ['viewer'],
    check: { grant: [{ verbs: ['get'], apiGroups: [P], resources: ['*'] }] },
    want: { ok: false, missing: [{ verbs: ['get'], apiGroups: [P], resources: ['*'] }] },
  },
  {
    name: 'only the uncovered atoms are reported',
    held: ['viewer'],
    check: { grant: [{ verbs: ['get', 'delete'], apiGroups: [P], resources: ['persons', 'pets'] }] },
    want: {
      ok: false,
      missing: [
        { verbs: ['get'], apiGroups: [P], resources: ['pets'] },
        { verbs: ['delete'], apiGroups: [P], resources: ['persons'] },
        { verbs: ['delete'], apiGroups: [P], resources: ['pets'] },
      ],
    },
  },
  {
    name: 'a named holder cannot grant every name',
    held: ['ann-only'],
    check: { grant: [{ verbs: ['get'], apiGroups: [P], resources: ['persons'] }] },
    want: { ok: false, missing: [{ verbs: ['get'], apiGroups: [P], resources: ['persons'] }] },
  },
  {
    name: 'a named holder cannot grant another name',
    held: ['ann-only'],
    check: { grant: [{ verbs: ['get'], apiGroups: [P], resources: ['persons'], resourceNames: ['ann', 'bob'] }] },
    want: { ok: false, missing: [{ verbs: ['get'], apiGroups: [P], resources: ['persons'], resourceNames: ['bob'] }] },
  },
  {
    name: 'a named holder may grant that name',
    held: ['ann-only'],
    check: { grant: [{ verbs: ['update'], apiGroups: [P], resources: ['persons'], resourceNames: ['ann'] }] },
    want: { ok: true },
  },
  {
    name: '*/sub covers that subresource of a plugin resource',
    held: ['status-any'],
    check: { grant: [{ verbs: ['update'], apiGroups: [P], resources: ['people/persons/status', '*/status'] }] },
    want: { ok: true },
  },
  {
    name: '*/sub alone does not cover the ambiguous a/sub form',
    held: ['status-any'],
    check: { grant: [{ verbs: ['update'], apiGroups: [P], resources: ['persons/status'] }] },
    want: { ok: false, missing: [{ verbs: ['update'], apiGroups: [P], resources: ['persons/status'] }] },
  },
  {
    name: 'a plain plural does not cover a subresource',
    held: ['viewer'],
    check: { grant: [{ verbs: ['get'], apiGroups: [P], resources: ['persons/status'] }] },
    want: { ok: false, missing: [{ verbs: ['get'], apiGroups: [P], resources: ['persons/status'] }] },
  },
  {
    name: 'a URL below a held prefix may be granted',
    held: ['assets'],
    check: { grant: [{ verbs: ['get'], nonResourceURLs: ['/assets/img/*', '/assets/app.js', '/healthz'] }] },
    want: { ok: true },
  },
  {
    name: '* URLs are refused',
    held: ['assets'],
    check: { grant: [{ verbs: ['get'], nonResourceURLs: ['*'] }] },
    want: { ok: false, missing: [{ verbs: ['get'], nonResourceURLs: ['*'] }] },
  },
  {
    name: 'a wider URL prefix is refused',
    held: ['assets'],
    check: { grant: [{ verbs: ['get'], nonResourceURLs: ['/assets*'] }] },
    want: { ok: false, missing: [{ verbs: ['get'], nonResourceURLs: ['/assets*'] }] },
  },
  {
    name: 'a URL with another verb is refused',
    held: ['assets'],
    check: { grant: [{ verbs: ['post'], nonResourceURLs: ['/healthz'] }] },
    want: { ok: false, missing: [{ verbs: ['post'], nonResourceURLs: ['/healthz'] }] },
  },
  // binding roles
  {
    name: 'binding super-role is refused to a non-super holder',
    held: ['writer', 'assets'],
    check: { bind: 'super-role' },
    want: {
      ok: false,
      missing: [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ],
      reason: 'it reaches super-role: only a super administrator may grant it',
    },
  },
  { name: 'super-role may bind super-role', held: ['super-role'], check: { bind: 'super-role' }, want: { ok: true } },
  {
    name: 'binding the plugin management template is refused, even to one holding its rules, naming it',
    held: ['plugin-rules'],
    check: { bind: 'role-template-manage-plugins' },
    want: {
      ok: false,
      missing: [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ],
      reason:
        "it reaches role-template-manage-plugins, which counts as super-role (a plugin's code runs inside the server " +
        'with all of its rights): only a super administrator may grant it',
    },
  },
  {
    name: 'super-role may bind the plugin management template',
    held: ['super-role'],
    check: { bind: 'role-template-manage-plugins' },
    want: { ok: true },
  },
  {
    name: 'binding a role you do not hold is refused',
    held: ['viewer'],
    check: { bind: 'writer' },
    want: {
      ok: false,
      missing: [
        { verbs: ['update'], apiGroups: [P], resources: ['persons'] },
        { verbs: ['delete'], apiGroups: [P], resources: ['persons'] },
      ],
    },
  },
  {
    name: 'binding a role held through a dependency is allowed',
    held: ['writer'],
    check: { bind: 'viewer' },
    want: { ok: true },
  },
  {
    name: "binding counts the role's dependencies",
    held: ['ann-only', 'viewer'],
    check: { bind: 'writer' },
    want: {
      ok: false,
      missing: [
        { verbs: ['update'], apiGroups: [P], resources: ['persons'] },
        { verbs: ['delete'], apiGroups: [P], resources: ['persons'] },
      ],
    },
  },
  {
    name: 'binding counts templates aggregated into the role',
    held: ['viewer'],
    check: { bind: 'editor' },
    want: { ok: false, missing: [{ verbs: ['create'], apiGroups: [P], resources: ['persons'] }] },
  },
  {
    name: 'binding a role whose expansion you hold is allowed',
    held: ['editor'],
    check: { bind: 'editor' },
    want: { ok: true },
  },
  // writing roles
  {
    name: 'writing a role with held rules and dependencies is allowed',
    held: ['writer'],
    check: {
      write: role('mine', [{ verbs: ['get'], apiGroups: [P], resources: ['persons'] }], {
        annotations: { [DEPENDENCIES_ANNOTATION]: '["viewer"]' },
      })[1],
    },
    want: { ok: true },
  },
  {
    name: 'writing a dependency on super-role is refused',
    held: ['writer'],
    check: { write: role('mine', [], { annotations: { [DEPENDENCIES_ANNOTATION]: '["super-role"]' } })[1] },
    want: {
      ok: false,
      missing: [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ],
      reason: 'it reaches super-role: only a super administrator may grant it',
    },
  },
  {
    name: 'aggregating a role you do not hold into your own is refused',
    held: ['viewer'],
    check: {
      write: role('writer', [{ verbs: ['update', 'delete'], apiGroups: [P], resources: ['persons'] }], {
        labels: { [`${AGGREGATE_TO_LABEL_PREFIX}viewer`]: 'true' },
      })[1],
    },
    want: {
      ok: false,
      missing: [
        { verbs: ['update'], apiGroups: [P], resources: ['persons'] },
        { verbs: ['delete'], apiGroups: [P], resources: ['persons'] },
      ],
    },
  },
];

describe('escalation', () => {
  it.each(cases)('$name', ({ held, check, want }) => {
    const heldRoles = expandRoles(held, roles);
    const got =
      'grant' in check
        ? confirmNoEscalation(heldRoles, check.grant)
        : 'bind' in check
          ? canBind(heldRoles, expandRoles([check.bind], roles))
          : canWriteRole(heldRoles, check.write, roles);
    expect(got).toEqual(want);
  });

  const dependent = (...names: string[]) =>
    role('mine', [], { annotations: { [DEPENDENCIES_ANNOTATION]: JSON.stringify(names) } })[1];
  it.each([
    { name: 'existing roles', role: dependent('viewer', 'writer'), prev: undefined, want: [] },
    {
      name: 'a name no role has yet',
      role: dependent('viewer', 'future-admins'),
      prev: undefined,
      want: ['future-admins'],
    },
    { name: 'a missing name kept from before', role: dependent('viewer', 'gone'), prev: dependent('gone'), want: [] },
    {
      name: 'a missing name added by an update',
      role: dependent('gone', 'later'),
      prev: dependent('gone'),
      want: ['later'],
    },
    { name: 'no dependencies', role: role('mine', [])[1], prev: undefined, want: [] },
  ])('missing dependencies: $name', ({ role: r, prev, want }) =>
    expect(missingDependencies(r, prev, roles)).toEqual(want),
  );

  // What every check above rests on: a rule broken into the atoms that must each be covered.
  it.each([
    {
      name: 'one atom per verb',
      rule: { verbs: ['get', 'list'], apiGroups: [P], resources: ['persons'] },
      want: [
        { verbs: ['get'], apiGroups: [P], resources: ['persons'] },
        { verbs: ['list'], apiGroups: [P], resources: ['persons'] },
      ],
    },
    {
      name: 'verb × group × resource, in that order',
      rule: { verbs: ['get'], apiGroups: [P, 'q'], resources: ['a', 'b'] },
      want: [
        { verbs: ['get'], apiGroups: [P], resources: ['a'] },
        { verbs: ['get'], apiGroups: [P], resources: ['b'] },
        { verbs: ['get'], apiGroups: ['q'], resources: ['a'] },
        { verbs: ['get'], apiGroups: ['q'], resources: ['b'] },
      ],
    },
    {
      name: 'one atom per name',
      rule: { verbs: ['update'], apiGroups: [P], resources: ['persons'], resourceNames: ['ann', 'bob'] },
      want: [
        { verbs: ['update'], apiGroups: [P], resources: ['persons'], resourceNames: ['ann'] },
        { verbs: ['update'], apiGroups: [P], resources: ['persons'], resourceNames: ['bob'] },
      ],
    },
    {
      name: 'an empty name list means every name',
      rule: { verbs: ['get'], apiGroups: [P], resources: ['persons'], resourceNames: [] },
      want: [{ verbs: ['get'], apiGroups: [P], resources: ['persons'] }],
    },
    {
      name: 'one atom per verb and URL',
      rule: { verbs: ['get', 'post'], nonResourceURLs: ['/healthz', '/assets/*'] },
      want: [
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
        { verbs: ['get'], nonResourceURLs: ['/assets/*'] },
        { verbs: ['post'], nonResourceURLs: ['/healthz'] },
        { verbs: ['post'], nonResourceURLs: ['/assets/*'] },
      ],
    },
    {
      name: 'wildcards stay whole',
      rule: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      want: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    },
    { name: 'no verbs: no atoms', rule: { verbs: [], apiGroups: [P], resources: ['persons'] }, want: [] },
    { name: 'groups without resources: no atoms', rule: { verbs: ['get'], apiGroups: [P] }, want: [] },
  ] satisfies Array<{ name: string; rule: PolicyRule; want: PolicyRule[] }>)('atoms: $name', ({ rule, want }) => {
    expect(atomicRules(rule)).toEqual(want);
  });
});
