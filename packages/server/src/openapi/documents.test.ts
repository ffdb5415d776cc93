import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { groupVersionDocument, groupVersionKeys, openApiIndex, type Served, serviceDocument } from './documents.js';
import { collectionPath, type ModelShape, modelComponentName, modelPart } from './model-operations.js';
import { groupVersionOf, openApiPath, type RouteShape } from './route-operations.js';

const person: ModelShape = {
  group: 'people.svc.run',
  version: 'v1alpha1',
  kind: 'Person',
  plural: 'persons',
  apiVersion: 'people.svc.run/v1alpha1',
  schema: {
    type: 'object',
    required: ['spec'],
    properties: { spec: { type: 'object', properties: { age: { type: 'integer' }, other: { $ref: '#' } } } },
  },
  statusSubresource: true,
};
const user: ModelShape = {
  group: '',
  version: 'v1alpha1',
  kind: 'User',
  plural: 'users',
  apiVersion: 'v1alpha1',
  schema: undefined,
  statusSubresource: false,
};
const stats: RouteShape = {
  method: 'POST',
  path: '/apis/console.api.people.svc.run/v1alpha1/persons/:name/greeting',
  owner: 'plugin:people',
  doc: {
    summary: 'Greet a person',
    requestBody: { type: 'object', required: ['words'], properties: { words: { type: ['string', 'null'] } } },
    response: { type: 'object', properties: { said: { type: 'string' } } },
  },
};
const served: Served = {
  models: [person, user],
  routes: [
    { method: 'GET', path: '/apis/:group/:version/:plural', owner: 'core' },
    { method: 'GET', path: '/apis/:group/:version', owner: 'core', public: true },
    { method: 'GET', path: '/docs/:file', owner: 'core', public: true },
    stats,
  ],
};

describe('paths and group versions of routes', () => {
  it.each([
    ['/apis/g.example.com/v1/things', '/apis/g.example.com/v1/things', []],
    ['/apis/g.example.com/v1/things/:name/greeting', '/apis/g.example.com/v1/things/{name}/greeting', ['name']],
    ['/docs/*', '/docs/{path}', ['path']],
    ['/items/:id(^\\d+)', '/items/{id}', ['id']],
  ])('%s is %s', (input, path, parameters) => {
    expect(openApiPath(input)).toEqual({ path, parameters });
  });

  it.each([
    ['/apis/people.svc.run/v1alpha1/persons', { group: 'people.svc.run', version: 'v1alpha1' }],
    ['/api/v1alpha1/users', { group: '', version: 'v1alpha1' }],
    ['/apis/:group/:version', undefined],
    ['/api/:version', undefined],
    ['/apis', undefined],
    ['/login', undefined],
  ])('%s is served in %j', (path, expected) => {
    expect(groupVersionOf(path)).toEqual(expected);
  });

  it('names components and collections the Kubernetes way', () => {
    expect(modelComponentName(person)).toBe('run.svc.people.v1alpha1.Person');
    expect(modelComponentName(user)).toBe('core.v1alpha1.User');
    expect(collectionPath(person)).toBe('/apis/people.svc.run/v1alpha1/persons');
    expect(collectionPath(user)).toBe('/api/v1alpha1/users');
  });
});

describe("a model's part of a document", () => {
  const part = modelPart(person, '3.0');
  const operations = Object.fromEntries(
    Object.entries(part.paths).map(([path, item]) => [
      path,
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([method, op]) => `${method}:${(op as Record<string, string>)['x-kubernetes-action']}`),
    ]),
  );

  it('has the generated routes, the status subresource included, with their Kubernetes actions', () => {
    expect(operations).toEqual({
      '/apis/people.svc.run/v1alpha1/persons': ['get:list', 'post:post', 'delete:deletecollection'],
      '/apis/people.svc.run/v1alpha1/persons/{name}': ['get:get', 'put:put', 'patch:patch', 'delete:delete'],
      '/apis/people.svc.run/v1alpha1/persons/{name}/status': ['get:get', 'put:put', 'patch:patch'],
    });
    expect(Object.keys(modelPart(user, '3.0').paths)).toEqual(['/api/v1alpha1/users', '/api/v1alpha1/users/{name}']);
  });

  it('marks the object schema and every operation with the group, version and kind', () => {
    const gvk = { group: 'people.svc.run', kind: 'Person', version: 'v1alpha1' };
    const schema = part.components['run.svc.people.v1alpha1.Person']!;
    expect(schema['x-kubernetes-group-version-kind']).toEqual([gvk]);
    expect(Object.keys(schema.properties as object)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(schema.required).toEqual(['spec']);
    const patch = part.paths['/apis/people.svc.run/v1alpha1/persons/{name}']!.patch as Record<string, unknown>;
    expect(patch['x-kubernetes-group-version-kind']).toEqual(gvk);
    // kubectl leaves validation to the server only when the kind's PATCH takes fieldValidation.
    expect((patch.parameters as Array<{ name: string }>).map((p) => p.name)).toEqual([
      'dryRun',
      'fieldValidation',
      'fieldManager',
      'force',
    ]);
    expect(Object.keys((patch.requestBody as { content: object }).content)).toEqual([
      'application/merge-patch+json',
      'application/json-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect(part.components['run.svc.people.v1alpha1.PersonList']!['x-kubernetes-group-version-kind']).toEqual([
      { ...gvk, kind: 'PersonList' },
    ]);
  });
});

type Document = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, unknown> } };

describe('the documents', () => {
  it('lists each group version served, custom routes’ ones included, and where its document is', () => {
    expect(groupVersionKeys(served)).toEqual([
      'api/v1alpha1',
      'apis/console.api.people.svc.run/v1alpha1',
      'apis/people.svc.run/v1alpha1',
    ]);
    expect(openApiIndex(new Map([['apis/people.svc.run/v1alpha1', 'AB12']]))).toEqual({
      paths: {
        'apis/people.svc.run/v1alpha1': { serverRelativeURL: '/openapi/v3/apis/people.svc.run/v1alpha1?hash=AB12' },
      },
    });
    expect(groupVersionDocument(served, 'apis/nothing.example.com/v1', '1.0.0')).toBeUndefined();
  });

  it("puts a custom route's declared schemas in its group version's document", () => {
    const doc = groupVersionDocument(served, 'apis/console.api.people.svc.run/v1alpha1', '1.0.0') as {
      paths: Record<string, Record<string, any>>;
      components: { schemas: Record<string, unknown> };
    };
    const op = doc.paths['/apis/console.api.people.svc.run/v1alpha1/persons/{name}/greeting']!.post;
    expect(op.summary).toBe('Greet a person');
    expect(op.parameters).toEqual([{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }]);
    const request = op.requestBody.content['application/json'].schema.$ref.split('/').pop();
    expect(doc.components.schemas[request]).toEqual({
      type: 'object',
      required: ['words'],
      properties: { words: { type: 'string', nullable: true } },
    });
    // Integer-like keys come first in a JS object: the 4xx ones, then 2XX.
    expect(Object.keys(op.responses)).toEqual(['400', '401', '403', '404', '413', '415', '2XX', 'default']);
  });

  it('describes a body only for methods that take one', () => {
    const get: RouteShape = { ...stats, method: 'GET' };
    const doc = groupVersionDocument({ models: [], routes: [get] }, 'apis/console.api.people.svc.run/v1alpha1', '1')!;
    const op = (doc as Document).paths['/apis/console.api.people.svc.run/v1alpha1/persons/{name}/greeting']!.get;
    expect(op.requestBody).toBeUndefined();
    expect(op.security).toHaveLength(3);
  });

  it.each([
    ['3.0 apis/people.svc.run/v1alpha1', () => groupVersionDocument(served, 'apis/people.svc.run/v1alpha1', '1.0.0')],
    ['3.0 api/v1alpha1', () => groupVersionDocument(served, 'api/v1alpha1', '1.0.0')],
    [
      '3.0 apis/console.api.people.svc.run/v1alpha1',
      () => groupVersionDocument(served, 'apis/console.api.people.svc.run/v1alpha1', '1.0.0'),
    ],
    ['3.1 of everything', () => serviceDocument(served, [], '1.0.0')],
  ])('%s is a valid OpenAPI document whose references all resolve', async (_name, build) => {
    const validator = new Validator();
    // A copy: resolveRefs puts each reference's target in its place, in the document it was given, and a document
    // shares its components with every other one the process builds.
    const result = await validator.validate(structuredClone(build()) as Parameters<Validator['validate']>[0]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(() => validator.resolveRefs()).not.toThrow();
  });
});
