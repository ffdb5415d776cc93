import { AGGREGATE_TO_LABEL_PREFIX, DEPENDENCIES_ANNOTATION } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { type AuthorizeOptions, authorize, type Decision } from './authorizer.js';
import { classifyRequest } from './request-info.js';
import { parseRequestTarget } from './request-target.js';
import { expandRoles, type Role } from './roles.js';

const roleList: Role[] = [
  { name: 'super-role', labels: {}, annotations: {}, rules: [] },
  {
    name: 'anonymous',
    labels: {},
    annotations: {},
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/assets/*'] }],
  },
  { name: 'authenticated', labels: {}, annotations: {}, rules: [{ verbs: ['post'], nonResourceURLs: ['/logout'] }] },
  {
    name: 'people-view',
    labels: { [`${AGGREGATE_TO_LABEL_PREFIX}anonymous`]: 'true' },
    annotations: {},
    rules: [{ apiGroups: ['people.svc.run'], resources: ['people/persons'], verbs: ['get', 'list'] }],
  },
  {
    name: 'people-manage',
    labels: {},
    annotations: { [DEPENDENCIES_ANNOTATION]: '["people-view"]' },
    rules: [
      { apiGroups: ['people.svc.run'], resources: ['persons/status'], verbs: ['update'] },
      {
        apiGroups: ['people.svc.run'],
        resources: ['persons'],
        resourceNames: ['ann', 'bob'],
        verbs: ['update', 'delete'],
      },
    ],
  },
];
const roles = new Map(roleList.map((r) => [r.name, r]));

const P = '/apis/people.svc.run/v1alpha1';
const cases: Array<{
  name: string;
  held: string[];
  request: { method: string; path: string };
  plugin?: string;
  options?: AuthorizeOptions;
  want: Decision;
}> = [
  {
    name: 'super-role allows everything and says so',
    held: ['super-role'],
    request: { method: 'DELETE', path: `${P}/persons` },
    want: { allowed: true, reason: 'allowed: role "super-role" allows everything', role: 'super-role' },
  },
  {
    name: 'the reason can name the subject',
    held: ['super-role'],
    request: { method: 'GET', path: '/x' },
    options: { subject: 'admin' },
    want: {
      allowed: true,
      reason: 'allowed for user "admin": role "super-role" allows everything',
      role: 'super-role',
    },
  },
  {
    name: 'non-resource allow names role and rule',
    held: ['anonymous'],
    request: { method: 'GET', path: '/assets/app.js' },
    want: {
      allowed: true,
      reason: 'allowed by role "anonymous" rule 0 (verbs=get nonResourceURLs=/healthz,/assets/*)',
      role: 'anonymous',
      ruleIndex: 0,
    },
  },
  {
    name: 'non-resource denial names verb and path',
    held: ['anonymous'],
    request: { method: 'POST', path: '/logout' },
    want: { allowed: false, reason: 'no rule allowed post on path /logout' },
  },
  {
    name: 'aggregated template allows through the plugin form',
    held: ['anonymous'],
    request: { method: 'GET', path: `${P}/persons` },
    plugin: 'people',
    want: {
      allowed: true,
      reason: 'allowed by role "people-view" rule 0 (verbs=get,list apiGroups=people.svc.run resources=people/persons)',
      role: 'people-view',
      ruleIndex: 0,
    },
  },
  {
    name: 'without the owning plugin the plugin form does not match',
    held: ['anonymous'],
    request: { method: 'GET', path: `${P}/persons` },
    want: { allowed: false, reason: 'no rule allowed list on persons in group "people.svc.run"' },
  },
  {
    name: 'rule index points into the role that matched',
    held: ['people-manage'],
    request: { method: 'DELETE', path: `${P}/persons/bob` },
    plugin: 'people',
    want: {
      allowed: true,
      reason:
        'allowed by role "people-manage" rule 1 (verbs=update,delete apiGroups=people.svc.run resources=persons resourceNames=ann,bob)',
      role: 'people-manage',
      ruleIndex: 1,
    },
  },
  {
    name: 'a dependency allows what the role itself does not',
    held: ['people-manage'],
    request: { method: 'GET', path: `${P}/persons/cid` },
    plugin: 'people',
    want: {
      allowed: true,
      reason: 'allowed by role "people-view" rule 0 (verbs=get,list apiGroups=people.svc.run resources=people/persons)',
      role: 'people-view',
      ruleIndex: 0,
    },
  },
  {
    name: 'resource denial names verb, resource, name, group and plugin',
    held: ['people-manage'],
    request: { method: 'DELETE', path: `${P}/persons/cid` },
    plugin: 'people',
    want: {
      allowed: false,
      reason: 'no rule allowed delete on persons "cid" in group "people.svc.run" (plugin people)',
    },
  },
  {
    name: 'subresource denial names plural/sub',
    held: ['people-view'],
    request: { method: 'PUT', path: `${P}/persons/ann/status` },
    want: { allowed: false, reason: 'no rule allowed update on persons/status "ann" in group "people.svc.run"' },
  },
  {
    name: 'denial with a subject names it',
    held: [],
    request: { method: 'GET', path: '/healthz' },
    options: { subject: 'ann' },
    want: { allowed: false, reason: 'no rule for user "ann" allowed get on path /healthz' },
  },
  {
    name: 'core group is shown as an empty string',
    held: ['authenticated'],
    request: { method: 'GET', path: '/api/v1alpha1/roles' },
    want: { allowed: false, reason: 'no rule allowed list on roles in group ""' },
  },
];

describe('authorize', () => {
  it.each(cases)('$name', ({ held, request, plugin, options, want }) => {
    const parsed = parseRequestTarget(request.path);
    if (!parsed.ok) throw new Error(parsed.problem);
    const info = classifyRequest({ method: request.method, target: parsed.target });
    const attributes = { ...info, ...(plugin === undefined ? {} : { plugin }) };
    expect(authorize(attributes, expandRoles(held, roles), options)).toEqual(want);
  });
});
