import { describe, expect, it } from 'vitest';
import { type Attributes, type PolicyRule, ruleAllows } from './rules.js';

const P = 'people.svc.run';
const req = (verb: string, resource: string, opts: Partial<Attributes> = {}): Attributes => {
  const [plural = '', subresource = ''] = resource.split('/');
  return {
    isResourceRequest: true,
    verb,
    path: '',
    apiGroup: P,
    resource: plural,
    subresource,
    name: '',
    ...opts,
  };
};
const url = (verb: string, path: string): Attributes => ({
  isResourceRequest: false,
  verb,
  path,
  apiGroup: '',
  resource: '',
  subresource: '',
  name: '',
});
const view: PolicyRule = { apiGroups: [P], resources: ['persons'], verbs: ['get', 'list'] };

const cases: Array<{ name: string; rule: PolicyRule; request: Attributes; allowed: boolean }> = [
  // verbs
  { name: 'listed verb matches', rule: view, request: req('list', 'persons'), allowed: true },
  {
    name: 'unlisted verb does not match',
    rule: view,
    request: req('delete', 'persons', { name: 'ann' }),
    allowed: false,
  },
  {
    name: '* verb matches any verb',
    rule: { ...view, verbs: ['*'] },
    request: req('deletecollection', 'persons'),
    allowed: true,
  },
  {
    name: 'empty verbs match nothing',
    rule: { ...view, verbs: [] },
    request: req('get', 'persons', { name: 'ann' }),
    allowed: false,
  },
  {
    name: 'verbs are case-sensitive',
    rule: { ...view, verbs: ['GET'] },
    request: req('get', 'persons', { name: 'ann' }),
    allowed: false,
  },
  // api groups
  { name: 'listed group matches', rule: view, request: req('get', 'persons', { name: 'ann' }), allowed: true },
  {
    name: 'other group does not match',
    rule: view,
    request: req('get', 'persons', { apiGroup: 'other.example.com' }),
    allowed: false,
  },
  {
    name: '* group matches any group',
    rule: { ...view, apiGroups: ['*'] },
    request: req('list', 'persons', { apiGroup: 'x.example.com' }),
    allowed: true,
  },
  {
    name: 'empty-string group matches the core group',
    rule: { ...view, apiGroups: [''] },
    request: req('list', 'persons', { apiGroup: '' }),
    allowed: true,
  },
  {
    name: 'core group rule does not match a named group',
    rule: { ...view, apiGroups: [''] },
    request: req('list', 'persons'),
    allowed: false,
  },
  {
    name: 'absent apiGroups match no resource',
    rule: { resources: ['persons'], verbs: ['*'] },
    request: req('list', 'persons'),
    allowed: false,
  },
  // resources
  { name: 'plural matches its collection', rule: view, request: req('list', 'persons'), allowed: true },
  { name: 'other plural does not match', rule: view, request: req('list', 'pets'), allowed: false },
  {
    name: 'plural does not match its subresource',
    rule: view,
    request: req('get', 'persons/status', { name: 'ann' }),
    allowed: false,
  },
  {
    name: 'plural/sub matches that subresource',
    rule: { ...view, resources: ['persons/status'] },
    request: req('get', 'persons/status', { name: 'ann' }),
    allowed: true,
  },
  {
    name: 'plural/sub does not match the main resource',
    rule: { ...view, resources: ['persons/status'] },
    request: req('get', 'persons', { name: 'ann' }),
    allowed: false,
  },
  {
    name: 'plural/sub does not match another subresource',
    rule: { ...view, resources: ['persons/status'] },
    request: req('get', 'persons/avatar', { name: 'ann' }),
    allowed: false,
  },
  {
    name: 'Halo fault fixed: */sub matches that subresource of any plural',
    rule: { ...view, resources: ['*/status'] },
    request: req('get', 'pets/status', { name: 'rex' }),
    allowed: true,
  },
  {
    name: '*/sub does not match a main resource',
    rule: { ...view, resources: ['*/status'] },
    request: req('get', 'pets', { name: 'rex' }),
    allowed: false,
  },
  {
    name: '*/sub does not match another subresource',
    rule: { ...view, resources: ['*/status'] },
    request: req('get', 'pets/avatar', { name: 'rex' }),
    allowed: false,
  },
  {
    name: '* resource matches resources and subresources',
    rule: { ...view, resources: ['*'] },
    request: req('get', 'pets/status', { name: 'rex' }),
    allowed: true,
  },
  {
    name: "Halo fault fixed: plugin/plural matches the plugin's resource",
    rule: { ...view, resources: ['people/persons'] },
    request: req('list', 'persons', { plugin: 'people' }),
    allowed: true,
  },
  {
    name: "plugin/plural does not match another plugin's resource",
    rule: { ...view, resources: ['people/persons'] },
    request: req('list', 'persons', { plugin: 'zoo' }),
    allowed: false,
  },
  {
    name: 'plugin/plural does not match a resource no plugin owns',
    rule: { ...view, resources: ['people/persons'] },
    request: req('list', 'persons'),
    allowed: false,
  },
  {
    name: "plugin/plural does not match the plugin's subresource",
    rule: { ...view, resources: ['people/persons'] },
    request: req('get', 'persons/status', { name: 'ann', plugin: 'people' }),
    allowed: false,
  },
  {
    name: "plugin/plural/sub matches the plugin's subresource",
    rule: { ...view, resources: ['people/persons/status'] },
    request: req('get', 'persons/status', { name: 'ann', plugin: 'people' }),
    allowed: true,
  },
  {
    name: 'plain plural matches a plugin-owned resource too',
    rule: view,
    request: req('list', 'persons', { plugin: 'people' }),
    allowed: true,
  },
  {
    name: 'absent resources match no resource',
    rule: { apiGroups: [P], verbs: ['*'] },
    request: req('list', 'persons'),
    allowed: false,
  },
  // resource names
  {
    name: 'no resourceNames means every name',
    rule: view,
    request: req('get', 'persons', { name: 'ann' }),
    allowed: true,
  },
  {
    name: 'empty resourceNames means every name',
    rule: { ...view, resourceNames: [] },
    request: req('get', 'persons', { name: 'ann' }),
    allowed: true,
  },
  {
    name: 'first resourceNames entry matches',
    rule: { ...view, resourceNames: ['ann', 'bob'] },
    request: req('get', 'persons', { name: 'ann' }),
    allowed: true,
  },
  {
    name: 'Halo fault fixed: second resourceNames entry matches',
    rule: { ...view, resourceNames: ['ann', 'bob'] },
    request: req('get', 'persons', { name: 'bob' }),
    allowed: true,
  },
  {
    name: 'unlisted name does not match',
    rule: { ...view, resourceNames: ['ann', 'bob'] },
    request: req('get', 'persons', { name: 'cid' }),
    allowed: false,
  },
  {
    name: 'named rule never allows list',
    rule: { ...view, resourceNames: ['ann'] },
    request: req('list', 'persons'),
    allowed: false,
  },
  {
    name: 'named rule never allows create',
    rule: { ...view, verbs: ['create'], resourceNames: ['ann'] },
    request: req('create', 'persons'),
    allowed: false,
  },
  {
    name: 'named rule never allows deletecollection',
    rule: { ...view, verbs: ['*'], resourceNames: ['ann'] },
    request: req('deletecollection', 'persons'),
    allowed: false,
  },
  {
    name: '* resourceName matches any name',
    rule: { ...view, resourceNames: ['*'] },
    request: req('get', 'persons', { name: 'zed' }),
    allowed: true,
  },
  {
    name: '* resourceName still needs a name',
    rule: { ...view, resourceNames: ['*'] },
    request: req('list', 'persons'),
    allowed: false,
  },
  {
    name: '- resourceName narrows to the self routes',
    rule: {
      apiGroups: ['api.console.svc.run'],
      resources: ['users/permissions'],
      resourceNames: ['-'],
      verbs: ['get'],
    },
    request: req('get', 'users/permissions', { apiGroup: 'api.console.svc.run', name: '-' }),
    allowed: true,
  },
  {
    name: '- resourceName does not match another user',
    rule: {
      apiGroups: ['api.console.svc.run'],
      resources: ['users/permissions'],
      resourceNames: ['-'],
      verbs: ['get'],
    },
    request: req('get', 'users/permissions', { apiGroup: 'api.console.svc.run', name: 'bob' }),
    allowed: false,
  },
  // non-resource URLs
  {
    name: 'exact URL matches',
    rule: { nonResourceURLs: ['/healthz'], verbs: ['get'] },
    request: url('get', '/healthz'),
    allowed: true,
  },
  {
    name: 'exact URL does not match a path below it',
    rule: { nonResourceURLs: ['/healthz'], verbs: ['get'] },
    request: url('get', '/healthz/ready'),
    allowed: false,
  },
  {
    name: 'URL with the wrong verb does not match',
    rule: { nonResourceURLs: ['/login'], verbs: ['get'] },
    request: url('post', '/login'),
    allowed: false,
  },
  {
    name: 'trailing * matches paths below',
    rule: { nonResourceURLs: ['/healthz/*'], verbs: ['get'] },
    request: url('get', '/healthz/ready/db'),
    allowed: true,
  },
  {
    name: 'trailing /* matches the path itself',
    rule: { nonResourceURLs: ['/healthz/*'], verbs: ['get'] },
    request: url('get', '/healthz'),
    allowed: true,
  },
  {
    name: 'trailing /* does not match a sibling prefix',
    rule: { nonResourceURLs: ['/healthz/*'], verbs: ['get'] },
    request: url('get', '/healthzz'),
    allowed: false,
  },
  {
    name: 'a lone * matches every path',
    rule: { nonResourceURLs: ['*'], verbs: ['*'] },
    request: url('post', '/anything/at/all'),
    allowed: true,
  },
  {
    name: 'a prefix cannot be escaped with ..',
    rule: { nonResourceURLs: ['/public/*'], verbs: ['get'] },
    request: url('get', '/public/../admin'),
    allowed: false,
  },
  {
    name: 'URL rules never match resource requests',
    rule: { nonResourceURLs: ['*'], verbs: ['*'] },
    request: req('get', 'persons', { name: 'ann' }),
    allowed: false,
  },
  {
    name: 'resource rules never match non-resource requests',
    rule: { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    request: url('get', '/healthz'),
    allowed: false,
  },
];

describe('ruleAllows', () => {
  it.each(cases)('$name', ({ rule, request, allowed }) => {
    expect(ruleAllows(request, rule)).toBe(allowed);
  });
});
