import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, levelFor, type Policy, type PolicyRequest, readPolicy } from './policy.js';

const request = (over: Partial<PolicyRequest> = {}): PolicyRequest => ({
  username: 'ann',
  groups: ['system:authenticated'],
  verb: 'create',
  isResourceRequest: true,
  apiGroup: 'people.svc.run',
  resource: 'persons',
  subresource: '',
  name: 'ada',
  path: '/apis/people.svc.run/v1alpha1/persons/ada',
  ...over,
});

describe('the default policy', () => {
  it.each([
    ['a create', request(), 'Metadata'],
    ['a delete', request({ verb: 'delete' }), 'Metadata'],
    [
      'a sign-in',
      request({ verb: 'post', isResourceRequest: false, path: '/login', apiGroup: '', resource: '' }),
      'Metadata',
    ],
    ['a get', request({ verb: 'get' }), 'None'],
    ['a list', request({ verb: 'list' }), 'None'],
    ['a watch', request({ verb: 'watch' }), 'None'],
    ['a probe', request({ verb: 'get', isResourceRequest: false, path: '/healthz' }), 'None'],
  ])('puts %s at %s', (_, req, level) => {
    expect(levelFor(DEFAULT_POLICY, req)).toBe(level);
  });
});

describe('levelFor', () => {
  const policy: Policy = {
    rules: [
      { level: 'None', users: ['system:kube-proxy'] },
      { level: 'RequestResponse', userGroups: ['oidc:auditors'], verbs: ['update'] },
      { level: 'Request', resources: [{ group: '', resources: ['users/password'] }] },
      { level: 'Metadata', resources: [{ group: 'people.svc.run', resources: ['*/status'] }] },
      { level: 'Request', resources: [{ group: 'people.svc.run', resources: ['persons'], resourceNames: ['ada'] }] },
      { level: 'Metadata', nonResourceURLs: ['/login', '/debug/*'] },
    ],
  };
  it.each([
    ['a user named by the first rule', request({ username: 'system:kube-proxy' }), 'None'],
    ['a group and verb', request({ groups: ['oidc:auditors'], verb: 'update' }), 'RequestResponse'],
    ['the group with another verb', request({ groups: ['oidc:auditors'], verb: 'create', name: 'bob' }), 'None'],
    [
      'a subresource by its full name',
      request({ apiGroup: '', resource: 'users', subresource: 'password' }),
      'Request',
    ],
    ['any status subresource', request({ subresource: 'status', name: 'bob' }), 'Metadata'],
    ['a named object', request({ name: 'ada' }), 'Request'],
    ['another object: no rule', request({ name: 'bob' }), 'None'],
    ['a non-resource URL', request({ isResourceRequest: false, path: '/login' }), 'Metadata'],
    ['below a wildcard URL', request({ isResourceRequest: false, path: '/debug/pprof' }), 'Metadata'],
    ['a resource rule never matches a non-resource request', request({ isResourceRequest: false, path: '/x' }), 'None'],
  ])('%s', (_, req, level) => {
    expect(levelFor(policy, req)).toBe(level);
  });
});

describe('readPolicy', () => {
  it('reads a Kubernetes policy file', () => {
    const policy = readPolicy(
      `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: RequestResponse
    resources: [{group: "rbac.authorization.svc.run", resources: ["rolebindings"]}]
  - level: None
`,
      'policy.yaml',
    );
    expect(policy).toEqual({
      omitStages: ['RequestReceived'],
      rules: [
        { level: 'RequestResponse', resources: [{ group: 'rbac.authorization.svc.run', resources: ['rolebindings'] }] },
        { level: 'None' },
      ],
    });
  });

  it.each([
    ['kind: Policy\nrules: [{level: None}]', 'policy.yaml: apiVersion must be audit.k8s.io/v1 and kind Policy'],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []', 'policy.yaml: rules must be a non-empty list'],
    [
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]',
      'rules[0]: level must be one of None, Metadata, Request, RequestResponse',
    ],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, user: [a]}]', 'rules[0]: unknown field "user"'],
    [
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, verbs: get}]',
      'rules[0]: verbs must be a list of strings',
    ],
    [
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, omitStages: [Later]}]',
      'rules[0]: must be a list of',
    ],
  ])('refuses %j', (text, message) => {
    expect(() => readPolicy(text, 'policy.yaml')).toThrow(message);
  });
});
