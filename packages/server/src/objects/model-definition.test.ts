import type { ModelDefinition } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import {
  isGroupOwnedBy,
  type ModelOwner,
  normalizeModelDefinition,
  RESERVED_PLUGIN_NAMES,
} from './model-definition.js';
import { person, personModel } from './person.suite.js';

const people: ModelOwner = { kind: 'plugin', name: 'people' };
const system: ModelOwner = { kind: 'system' };

describe('group ownership', () => {
  it.each([
    ['people.svc.run', true],
    ['console.api.people.svc.run', true],
    ['uc.api.people.svc.run', true],
    ['api.people.svc.run', true],
    ['example.com', true],
    ['people.example.com', true],
    ['', false],
    ['svc.run', false],
    ['other.svc.run', false],
    ['api.console.svc.run', false],
    ['console.api.other.svc.run', false],
    ['rbac.authorization.svc.run', false],
    ['x.people.svc.run', false],
    ['mysvc.run', false],
    ['Example.com', false],
    ['bad_group', false],
  ])('plugin people and group %j: %s', (group, owned) => {
    expect(isGroupOwnedBy(group, 'people')).toBe(owned);
    const declare = () => normalizeModelDefinition(personModel({ group }), people);
    if (owned) expect(declare()).toMatchObject({ group });
    else expect(declare).toThrow(/^invalid model Person/);
  });

  it.each(RESERVED_PLUGIN_NAMES)('the reserved name %s owns no svc.run group', (name) => {
    expect(isGroupOwnedBy(`${name}.svc.run`, name)).toBe(false);
    expect(isGroupOwnedBy(`api.${name}.svc.run`, name)).toBe(false);
    expect(() => normalizeModelDefinition(personModel({ group: 'example.com' }), { kind: 'plugin', name })).toThrow(
      /reserved/,
    );
  });

  it('lets the system declare core and service groups', () => {
    expect(normalizeModelDefinition(personModel({ group: '' }), system)).toMatchObject({
      apiVersion: 'v1alpha1',
      resource: 'persons',
    });
    expect(normalizeModelDefinition(personModel({ group: 'content.svc.run' }), system).resource).toBe(
      'content.svc.run/persons',
    );
  });

  it('explains a refusal', () => {
    expect(() => normalizeModelDefinition(personModel({ group: '' }), people)).toThrow(
      /empty \(core\) group is reserved/,
    );
    expect(() => normalizeModelDefinition(personModel({ group: 'other.svc.run' }), people)).toThrow(
      /group "other\.svc\.run" is reserved for the service; plugin "people" may use a domain of its own or people\.svc\.run/,
    );
  });
});

describe('normalizeModelDefinition', () => {
  it('derives apiVersion, resource, singular and index defaults', () => {
    const model = normalizeModelDefinition(
      personModel({
        indexes: [{ name: 'spec.age' }, { name: 'by-name', order: 'DESC', unique: true, indexFunc: () => 'x' }],
      }),
      people,
    );
    expect(model).toMatchObject({
      group: 'people.svc.run',
      version: 'v1alpha1',
      kind: 'Person',
      plural: 'persons',
      singular: 'person',
      apiVersion: 'people.svc.run/v1alpha1',
      resource: 'people.svc.run/persons',
      owner: people,
      statusSubresource: false,
      finalizers: [],
    });
    expect(model.indexes).toEqual([
      { name: 'spec.age', order: 'ASC', unique: false },
      { name: 'by-name', order: 'DESC', unique: true, indexFunc: expect.any(Function) },
    ]);
    expect(model.validate(person({ age: 151 }))).toEqual([{ path: '/spec/age', message: 'must be <= 150' }]);
  });

  it.each([
    ['version v1', { version: 'v1' }],
    ['version v2beta3', { version: 'v2beta3' }],
    ['an explicit singular', { singular: 'human' }],
    ['a kind with digits', { kind: 'Person2' }],
    ['no schema', { schema: undefined }],
    ['a status subresource', { statusSubresource: true }],
    ['finalizers', { finalizers: ['people.svc.run/farewell', 'example.com/archive'] }],
    ['short names and categories', { shortNames: ['ps', 'pp'], categories: ['all'] }],
    [
      'printer columns',
      { printerColumns: [{ name: 'Ready', type: 'string', jsonPath: '.status.conditions[0].status', priority: 1 }] },
    ],
  ])('accepts %s', (_name, overrides) => {
    expect(() => normalizeModelDefinition(personModel(overrides as Partial<ModelDefinition>), people)).not.toThrow();
  });

  it.each([
    ['a bad version', { version: '1.0' }, /version "1\.0" must look like v1/],
    ['version v1gamma1', { version: 'v1gamma1' }, /version/],
    ['a lowercase kind', { kind: 'person' }, /kind "person" must start with an uppercase letter/],
    ['a kind with a dash', { kind: 'My-Kind' }, /kind/],
    ['an uppercase plural', { plural: 'Persons' }, /plural "Persons" must be lowercase/],
    ['a plural with a dash', { plural: 'per-sons' }, /plural/],
    ['a bad singular', { singular: '1person' }, /singular "1person"/],
    ['an uppercase group', { group: 'People.svc.run' }, /group "People\.svc\.run" must be a DNS subdomain/],
    ['a group with a trailing dot', { group: 'example.com.' }, /DNS subdomain/],
    ['a missing kind', { kind: undefined }, /kind must be a string/],
    ['a duplicate index', { indexes: [{ name: 'spec.a' }, { name: 'spec.a' }] }, /index "spec\.a" is declared twice/],
    [
      'a default index',
      { indexes: [{ name: 'metadata.labels' }] },
      /index "metadata\.labels" is declared for every model already/,
    ],
    ['the name alias', { indexes: [{ name: 'name' }] }, /declared for every model/],
    ['a bad order', { indexes: [{ name: 'spec.a', order: 'asc' }] }, /order must be ASC or DESC/],
    [
      'a non-function indexFunc',
      { indexes: [{ name: 'spec.a', indexFunc: 'spec.a' }] },
      /indexFunc must be a function/,
    ],
    ['a non-path name without indexFunc', { indexes: [{ name: 'by name' }] }, /must be a field path/],
    ['an unnamed index', { indexes: [{}] }, /indexes\[0\]\.name must be a non-empty string/],
    ['indexes not an array', { indexes: {} }, /indexes must be an array/],
    ['finalizers not an array', { finalizers: 'people.svc.run/farewell' }, /finalizers must be an array of strings/],
    ['a finalizer that is not a string', { finalizers: [7] }, /finalizers\[0\] must be a string/],
    [
      'a duplicate finalizer',
      { finalizers: ['people.svc.run/farewell', 'people.svc.run/farewell'] },
      /finalizers\[1\] duplicate finalizer "people\.svc\.run\/farewell"/,
    ],
    ['a finalizer with a space', { finalizers: ['people.svc.run/fare well'] }, /finalizers\[0\] /],
    ['a short name with a dash', { shortNames: ['p-s'] }, /shortNames: "p-s" must be lowercase letters/],
    ['categories not an array', { categories: 'all' }, /categories must be an array/],
    [
      'a column without a path',
      { printerColumns: [{ name: 'X', type: 'string' }] },
      /printerColumns\[0\]\.jsonPath must be a path such as \.spec\.age/,
    ],
    [
      'a column path with a filter',
      { printerColumns: [{ name: 'X', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")]' }] },
      /jsonPath must be a path/,
    ],
    [
      'a column of an unknown type',
      { printerColumns: [{ name: 'X', type: 'text', jsonPath: '.spec.a' }] },
      /printerColumns\[0\]\.type must be one of string, integer, number, boolean, date/,
    ],
    [
      'a column named like a default one',
      { printerColumns: [{ name: 'age', type: 'integer', jsonPath: '.spec.age' }] },
      /printerColumns\[0\]: a column "age" is already shown/,
    ],
    [
      'a negative priority',
      { printerColumns: [{ name: 'X', type: 'string', jsonPath: '.spec.a', priority: -1 }] },
      /priority must be a non-negative integer/,
    ],
    [
      'a schema with unknown keywords',
      { schema: { type: 'object', propertys: {} } },
      /^model Person \(people\.svc\.run\/v1alpha1\): invalid schema: .*propertys/,
    ],
  ])('refuses %s', (_name, overrides, message) => {
    expect(() => normalizeModelDefinition(personModel(overrides as Partial<ModelDefinition>), people)).toThrow(message);
  });

  it('names the model and lists every problem', () => {
    expect(() => normalizeModelDefinition(personModel({ version: 'x', plural: 'X' }), people)).toThrow(
      /^invalid model Person \(people\.svc\.run\/x\): version "x" .*; plural "X" /,
    );
  });
});
