import { isApiError } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { normalizeModelDefinition } from './model-definition.js';
import { assertObjectShape, checkObjectShape } from './object-shape.js';
import { person, personModel } from './person.suite.js';

const model = normalizeModelDefinition(personModel(), { kind: 'plugin', name: 'people' });
const core = normalizeModelDefinition(personModel({ group: '', schema: undefined }), { kind: 'system' });

describe('checkObjectShape', () => {
  it.each([
    ['a valid person', person({ age: 3 })],
    ['generateName instead of a name', { ...person({}), metadata: { generateName: 'alice-' } }],
    [
      'labels and annotations',
      { ...person({}), metadata: { name: 'a', labels: { app: 'x' }, annotations: { n: 'free' } } },
    ],
  ])('accepts %s', (_name, body) => expect(checkObjectShape(body, model)).toEqual([]));

  it('accepts a core object with apiVersion = version', () => {
    expect(checkObjectShape({ apiVersion: 'v1alpha1', kind: 'Person', metadata: { name: 'a' } }, core)).toEqual([]);
  });

  it.each([
    ['an array', [], [{ path: '', message: 'must be a JSON object (a Person)' }]],
    ['a string', 'x', [{ path: '', message: 'must be a JSON object (a Person)' }]],
    ['null', null, [{ path: '', message: 'must be a JSON object (a Person)' }]],
    [
      'no apiVersion',
      { kind: 'Person', metadata: { name: 'a' }, spec: {} },
      [{ path: '/apiVersion', message: 'is required; expected "people.svc.run/v1alpha1"' }],
    ],
    [
      'a wrong apiVersion',
      { ...person({}), apiVersion: 'people.svc.run/v1' },
      [{ path: '/apiVersion', message: 'must be "people.svc.run/v1alpha1" (got "people.svc.run/v1")' }],
    ],
    ['a wrong kind', { ...person({}), kind: 'Dog' }, [{ path: '/kind', message: 'must be "Person" (got "Dog")' }]],
    ['a numeric kind', { ...person({}), kind: 1 }, [{ path: '/kind', message: 'must be "Person" (got 1)' }]],
    [
      'no metadata',
      { apiVersion: 'people.svc.run/v1alpha1', kind: 'Person', spec: {} },
      [{ path: '/metadata', message: 'is required' }],
    ],
    [
      'a bad name',
      person({}, 'Alice'),
      [{ path: '/metadata/name', message: "must contain only lowercase letters, digits and '-'" }],
    ],
    ['a schema violation', person({ age: 200 }), [{ path: '/spec/age', message: 'must be <= 150' }]],
    [
      'no spec',
      { apiVersion: 'people.svc.run/v1alpha1', kind: 'Person', metadata: { name: 'a' } },
      [{ path: '/spec', message: 'is required' }],
    ],
  ])('rejects %s', (_name, body, errors) => expect(checkObjectShape(body, model)).toEqual(errors));

  it('collects envelope, metadata and schema errors together', () => {
    const body = {
      apiVersion: 'x/v1',
      kind: 'Person',
      metadata: { name: '-a', labels: { 'svc.run/x': 'y' } },
      spec: { gender: 'X' },
    };
    expect(checkObjectShape(body, model).map((e) => e.path)).toEqual([
      '/apiVersion',
      '/metadata/name',
      '/metadata/labels/svc.run~1x',
      '/spec/gender',
    ]);
  });

  it('needs a name on update and refuses unprefixed labels for extension objects', () => {
    const body = { ...person({}), metadata: { generateName: 'a-', labels: { app: 'x' } } };
    expect(checkObjectShape(body, model, { mode: 'update', allowUnprefixedLabels: false }).map((e) => e.path)).toEqual([
      '/metadata/name',
      '/metadata/labels/app',
    ]);
  });

  it('applies schema defaults to the body', () => {
    const body = person({});
    expect(checkObjectShape(body, model)).toEqual([]);
    expect(body.spec).toEqual({ nickname: 'none' });
  });
});

describe('assertObjectShape', () => {
  const thrown = (body: unknown) => {
    try {
      assertObjectShape(body, model);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('passes a valid body', () => expect(thrown(person({}))).toBeUndefined());

  it('throws BadRequest for a body that is not an object', () => {
    expect(thrown([])).toMatchObject({ reason: 'BadRequest', status: 400 });
  });

  it('throws Invalid (400) carrying every field error', () => {
    const error = thrown(person({ age: 200, gender: 'X' }));
    expect(isApiError(error)).toBe(true);
    expect(error).toMatchObject({
      reason: 'Invalid',
      status: 400,
      message: 'Person "alice" is invalid: /spec/age: must be <= 150 (and 1 more)',
      errors: [
        { path: '/spec/age', message: 'must be <= 150' },
        { path: '/spec/gender', message: 'must be one of: "MALE", "FEMALE"' },
      ],
    });
  });
});
