import { describe, expect, it } from 'vitest';
import { findResource, type ResourceInfo, resourceNames, resourcesOf } from './discovery.js';
import { problemOf } from './errors.js';
import { collectionPath, listQuery, objectPath } from './paths.js';
import { splitLines } from './watch.js';

describe('the client pure helpers', () => {
  it.each([
    ['', { complete: [], remainder: '' }],
    ['{"a":1}', { complete: [], remainder: '{"a":1}' }],
    ['{"a":1}\n', { complete: ['{"a":1}'], remainder: '' }],
    ['{"a":1}\n\n{"b":2}\n{"c"', { complete: ['{"a":1}', '{"b":2}'], remainder: '{"c"' }],
  ])('splits %j into lines', (text, expected) => {
    expect(splitLines(text)).toEqual(expected);
  });

  it.each([
    [{ group: 'people.svc.run', version: 'v1alpha1', plural: 'persons' }, '/apis/people.svc.run/v1alpha1/persons'],
    [{ group: '', version: 'v1alpha1', plural: 'users' }, '/api/v1alpha1/users'],
  ])('builds the collection path of %j', (ref, path) => {
    expect(collectionPath(ref)).toBe(path);
    expect(objectPath(ref, 'a b')).toBe(`${path}/a%20b`);
  });

  it('turns list options into repeatable query parameters', () => {
    expect(listQuery({ sort: 'spec.age,desc', labelSelector: ['a=b', 'c'], limit: 5 })).toEqual({
      page: undefined,
      size: undefined,
      sort: ['spec.age,desc'],
      labelSelector: ['a=b', 'c'],
      fieldSelector: undefined,
      limit: 5,
      continue: undefined,
    });
  });

  it.each([
    [
      'problem+json',
      409,
      { title: 'Conflict', detail: 'stale', errors: [{ path: '/metadata/version', message: 'stale' }] },
      { status: 409, title: 'Conflict', detail: 'stale', errors: [{ path: '/metadata/version', message: 'stale' }] },
    ],
    [
      'a Kubernetes Status',
      400,
      { kind: 'Status', reason: 'Invalid', message: 'bad', details: { causes: [{ field: 'spec.age', message: 'x' }] } },
      { status: 400, title: 'Invalid', detail: 'bad', errors: [{ path: 'spec.age', message: 'x' }] },
    ],
    [
      'plain text',
      502,
      'Bad Gateway from the proxy',
      { status: 502, title: 'Bad Gateway', detail: 'Bad Gateway from the proxy' },
    ],
    ['no body', 500, undefined, { status: 500, title: 'Bad Gateway', detail: 'HTTP 500' }],
  ])('reads the problem of %s', (_what, status, body, expected) => {
    expect(problemOf(status, 'Bad Gateway', body)).toMatchObject(expected);
  });

  const resources: ResourceInfo[] = [
    ...resourcesOf('people.svc.run', 'v1alpha1', [
      { name: 'persons', singularName: 'person', kind: 'Person', verbs: ['get'], shortNames: ['ps'] },
      { name: 'persons/status', singularName: '', kind: 'Person', verbs: ['get'] },
    ]),
    ...resourcesOf('other.example.com', 'v1', [{ name: 'persons', singularName: 'person', kind: 'Person' }]),
  ];

  it.each([
    ['persons', 'people.svc.run'],
    ['Person', 'people.svc.run'],
    ['ps', 'people.svc.run'],
    ['persons.other.example.com', 'other.example.com'],
    ['person.other.example.com', 'other.example.com'],
    ['nope', undefined],
  ])('resolves "%s" to the group %s', (name, group) => {
    expect(findResource(resources, name)?.group).toBe(group);
  });

  it('folds subresources into their resource and lists every name', () => {
    expect(resources[0]).toMatchObject({ plural: 'persons', subresources: ['status'], shortNames: ['ps'] });
    expect(resourceNames(resources)).toEqual(['person', 'persons', 'ps']);
  });
});
