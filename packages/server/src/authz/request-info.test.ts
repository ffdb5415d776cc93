import { describe, expect, it } from 'vitest';
import { classifyRequest, type RequestInfo } from './request-info.js';
import { parseRequestTarget } from './request-target.js';

/** A request as the table writes it: the path may carry a query; `query` adds parameters. */
interface Input {
  method: string;
  path: string;
  query?: Record<string, string | string[]>;
  isWebSocket?: boolean;
}

function classify({ method, path, query, isWebSocket }: Input): RequestInfo {
  const parsed = parseRequestTarget(path);
  if (!parsed.ok) throw new Error(parsed.problem);
  const target = { ...parsed.target, query: { ...parsed.target.query, ...query } };
  return classifyRequest({ method, target, isWebSocket });
}

const G = '/apis/people.svc.run/v1alpha1';
const resource = (
  verb: string,
  apiGroup: string,
  resource: string,
  name = '',
  subresource = '',
): Partial<RequestInfo> => ({ isResourceRequest: true, verb, apiGroup, resource, name, subresource });
const nonResource = (verb: string, path: string): Partial<RequestInfo> => ({
  isResourceRequest: false,
  verb,
  path,
  apiGroup: '',
  resource: '',
  name: '',
  subresource: '',
  parts: [],
});

const cases: Array<{ name: string; input: Input; want: Partial<RequestInfo> }> = [
  // verbs on /apis
  {
    name: 'GET collection is list',
    input: { method: 'GET', path: `${G}/persons` },
    want: {
      ...resource('list', 'people.svc.run', 'persons'),
      apiPrefix: 'apis',
      apiVersion: 'v1alpha1',
      parts: ['persons'],
    },
  },
  {
    name: 'GET object is get',
    input: { method: 'GET', path: `${G}/persons/ann` },
    want: { ...resource('get', 'people.svc.run', 'persons', 'ann'), parts: ['persons', 'ann'] },
  },
  {
    name: 'GET subresource is get on plural/sub',
    input: { method: 'GET', path: `${G}/persons/ann/status` },
    want: { ...resource('get', 'people.svc.run', 'persons', 'ann', 'status'), parts: ['persons', 'ann', 'status'] },
  },
  {
    name: 'HEAD collection is list',
    input: { method: 'HEAD', path: `${G}/persons` },
    want: resource('list', 'people.svc.run', 'persons'),
  },
  {
    name: 'lowercase method is accepted',
    input: { method: 'get', path: `${G}/persons/ann` },
    want: resource('get', 'people.svc.run', 'persons', 'ann'),
  },
  {
    name: 'WebSocket on collection is watch',
    input: { method: 'GET', path: `${G}/persons`, isWebSocket: true },
    want: resource('watch', 'people.svc.run', 'persons'),
  },
  {
    name: 'watch=true on collection is watch',
    input: { method: 'GET', path: `${G}/persons`, query: { watch: 'true' } },
    want: resource('watch', 'people.svc.run', 'persons'),
  },
  {
    name: 'watch=1 on collection is watch',
    input: { method: 'GET', path: `${G}/persons`, query: { watch: '1' } },
    want: resource('watch', 'people.svc.run', 'persons'),
  },
  {
    name: 'repeated watch with one true is watch',
    input: { method: 'GET', path: `${G}/persons`, query: { watch: ['false', 'true'] } },
    want: resource('watch', 'people.svc.run', 'persons'),
  },
  {
    name: 'watch=false on collection is list',
    input: { method: 'GET', path: `${G}/persons`, query: { watch: 'false' } },
    want: resource('list', 'people.svc.run', 'persons'),
  },
  {
    name: 'watch=yes is not a watch',
    input: { method: 'GET', path: `${G}/persons`, query: { watch: 'yes' } },
    want: resource('list', 'people.svc.run', 'persons'),
  },
  {
    name: 'watch=true on an object stays get',
    input: { method: 'GET', path: `${G}/persons/ann`, query: { watch: 'true' } },
    want: resource('get', 'people.svc.run', 'persons', 'ann'),
  },
  {
    name: 'WebSocket on an object stays get',
    input: { method: 'GET', path: `${G}/persons/ann`, isWebSocket: true },
    want: resource('get', 'people.svc.run', 'persons', 'ann'),
  },
  {
    name: 'POST collection is create',
    input: { method: 'POST', path: `${G}/persons` },
    want: resource('create', 'people.svc.run', 'persons'),
  },
  {
    name: 'POST with - name is create on plural/sub',
    input: { method: 'POST', path: `${G}/posts/-/import` },
    want: resource('create', 'people.svc.run', 'posts', '-', 'import'),
  },
  {
    name: 'POST to a subresource of an object is create',
    input: { method: 'POST', path: '/apis/api.console.svc.run/v1alpha1/users/ann/permissions' },
    want: resource('create', 'api.console.svc.run', 'users', 'ann', 'permissions'),
  },
  {
    name: 'POST with a concrete name is create on that name',
    input: { method: 'POST', path: '/apis/api.console.svc.run/v1alpha1/plugins/install' },
    want: resource('create', 'api.console.svc.run', 'plugins', 'install'),
  },
  {
    name: 'PUT object is update',
    input: { method: 'PUT', path: `${G}/persons/ann` },
    want: resource('update', 'people.svc.run', 'persons', 'ann'),
  },
  {
    name: 'PUT subresource is update on plural/sub',
    input: { method: 'PUT', path: `${G}/persons/ann/status` },
    want: resource('update', 'people.svc.run', 'persons', 'ann', 'status'),
  },
  {
    name: 'PATCH object is patch',
    input: { method: 'PATCH', path: `${G}/persons/ann` },
    want: resource('patch', 'people.svc.run', 'persons', 'ann'),
  },
  {
    name: 'DELETE object is delete',
    input: { method: 'DELETE', path: `${G}/persons/ann` },
    want: resource('delete', 'people.svc.run', 'persons', 'ann'),
  },
  {
    name: 'DELETE collection is deletecollection',
    input: { method: 'DELETE', path: `${G}/persons` },
    want: resource('deletecollection', 'people.svc.run', 'persons'),
  },
  {
    name: 'unknown method keeps its name',
    input: { method: 'OPTIONS', path: `${G}/persons` },
    want: resource('options', 'people.svc.run', 'persons'),
  },
  // segment counts under /apis
  { name: '/apis is non-resource', input: { method: 'GET', path: '/apis' }, want: nonResource('get', '/apis') },
  {
    name: '/apis/<group> is non-resource',
    input: { method: 'GET', path: '/apis/people.svc.run' },
    want: nonResource('get', '/apis/people.svc.run'),
  },
  {
    name: '/apis/<group>/<version> (3 segments) is non-resource',
    input: { method: 'GET', path: G },
    want: nonResource('get', G),
  },
  {
    name: '7 segments under /apis is non-resource',
    input: { method: 'GET', path: `${G}/persons/ann/status/x` },
    want: nonResource('get', `${G}/persons/ann/status/x`),
  },
  // segment counts under /api
  { name: '/api is non-resource', input: { method: 'GET', path: '/api' }, want: nonResource('get', '/api') },
  {
    name: '/api/<version> is non-resource',
    input: { method: 'GET', path: '/api/v1alpha1' },
    want: nonResource('get', '/api/v1alpha1'),
  },
  {
    name: '/api 3 segments is list in the core group',
    input: { method: 'GET', path: '/api/v1alpha1/roles' },
    want: { ...resource('list', '', 'roles'), apiPrefix: 'api', apiVersion: 'v1alpha1' },
  },
  {
    name: '/api 4 segments is get',
    input: { method: 'GET', path: '/api/v1alpha1/roles/editor' },
    want: resource('get', '', 'roles', 'editor'),
  },
  {
    name: '/api 5 segments has a subresource',
    input: { method: 'PUT', path: '/api/v1alpha1/roles/editor/status' },
    want: resource('update', '', 'roles', 'editor', 'status'),
  },
  {
    name: '6 segments under /api is non-resource',
    input: { method: 'GET', path: '/api/v1alpha1/roles/editor/status/x' },
    want: nonResource('get', '/api/v1alpha1/roles/editor/status/x'),
  },
  // non-resource paths
  {
    name: '/healthz is non-resource get',
    input: { method: 'GET', path: '/healthz' },
    want: nonResource('get', '/healthz'),
  },
  {
    name: 'POST /login is non-resource post',
    input: { method: 'POST', path: '/login' },
    want: nonResource('post', '/login'),
  },
  { name: 'root path is non-resource', input: { method: 'GET', path: '/' }, want: nonResource('get', '/') },
  {
    name: 'other prefix with resource-like shape is non-resource',
    input: { method: 'GET', path: '/apix/g/v/persons' },
    want: nonResource('get', '/apix/g/v/persons'),
  },
  {
    name: 'DELETE on a non-resource path is delete',
    input: { method: 'DELETE', path: '/logout' },
    want: nonResource('delete', '/logout'),
  },
  // canonical paths
  {
    name: 'trailing slash on a collection is ignored',
    input: { method: 'GET', path: `${G}/persons/` },
    want: { ...resource('list', 'people.svc.run', 'persons'), path: `${G}/persons` },
  },
  {
    name: 'trailing slash on a non-resource path is ignored',
    input: { method: 'GET', path: '/healthz/' },
    want: nonResource('get', '/healthz'),
  },
  {
    name: 'empty segments are dropped',
    input: { method: 'GET', path: `/apis//people.svc.run//v1alpha1/persons//ann` },
    want: { ...resource('get', 'people.svc.run', 'persons', 'ann'), path: `${G}/persons/ann` },
  },
  {
    name: 'a query string in the path is cut off',
    input: { method: 'GET', path: `${G}/persons?size=1` },
    want: { ...resource('list', 'people.svc.run', 'persons'), path: `${G}/persons` },
  },
  {
    name: 'a watch=true in the path query is a watch',
    input: { method: 'GET', path: `${G}/persons?watch=true` },
    want: resource('watch', 'people.svc.run', 'persons'),
  },
  {
    name: 'HEAD with watch=true is a list',
    input: { method: 'HEAD', path: `${G}/persons?watch=true` },
    want: resource('list', 'people.svc.run', 'persons'),
  },
  {
    name: 'HEAD object is get',
    input: { method: 'HEAD', path: `${G}/persons/ann` },
    want: resource('get', 'people.svc.run', 'persons', 'ann'),
  },
  {
    name: 'percent-encoded segments are decoded',
    input: { method: 'GET', path: `/apis/people.svc.run/v1alpha1/person%73/%61nn` },
    want: { ...resource('get', 'people.svc.run', 'persons', 'ann'), path: `${G}/persons/ann` },
  },
];

describe('classifyRequest', () => {
  it.each(cases)('$name', ({ input, want }) => {
    expect(classify(input)).toMatchObject(want);
  });
});
