import { describe, expect, it } from 'vitest';
import { checkAgainstSchema } from '../src/resources/yaml-editor/schema-check.js';
import { yamlDiagnostics } from '../src/resources/yaml-editor/yaml-diagnostics.js';
import { lineOfPointer, pointerKeys } from '../src/resources/yaml-editor/yaml-positions.js';

const OBJECT = `apiVersion: people.svc.run/v1alpha1
kind: Person
metadata:
  name: ada
  labels:
    team: a
spec:
  name: Ada
  age: 36
  tags:
    - first
    - second
  friends:
    - name: Alan
      age: 41
    - name: Grace
  otherPerson: {spec: {name: Nested, age: 3}}
  empty:
  "a/b": slash
  block: |
    one
    two
`;

/** A Person-like schema: what svc's people plugin declares, shortened. */
const SCHEMA = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string', maxLength: 5 },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        gender: { type: 'string', enum: ['MALE', 'FEMALE'] },
        otherPerson: { $ref: '#' },
      },
    },
  },
};

describe('the YAML editor, pure parts', () => {
  it.each([
    { pointer: '', line: 1, why: 'the whole object: its first key' },
    { pointer: '/kind', line: 2, why: 'a scalar' },
    { pointer: '/metadata', line: 3, why: 'a map: its key' },
    { pointer: '/metadata/labels/team', line: 6, why: 'nested two deep' },
    { pointer: '/spec/age', line: 9, why: 'a scalar in spec' },
    { pointer: '/spec/tags', line: 10, why: 'a list: its key' },
    { pointer: '/spec/tags/1', line: 12, why: "a list's item" },
    { pointer: '/spec/friends/1', line: 16, why: "a list's map item: its first key" },
    { pointer: '/spec/friends/0/age', line: 15, why: 'in a map in a list' },
    { pointer: '/spec/otherPerson/spec/age', line: 17, why: 'in a one-line flow map' },
    { pointer: '/spec/empty', line: 18, why: 'a key with no value: the key' },
    { pointer: '/spec/a~1b', line: 19, why: 'a key with a slash, escaped in the pointer' },
    { pointer: '/spec/block', line: 20, why: 'a block scalar: where it starts' },
    { pointer: '/spec/gender', line: 7, why: 'missing: its parent key' },
    { pointer: '/spec/friends/5', line: 13, why: 'an item past the end: the list key' },
    { pointer: '/status/ageGroup', line: 1, why: 'missing at the top: the first line' },
  ])('$pointer is at line $line ($why)', ({ pointer, line }) => {
    expect(lineOfPointer(OBJECT, pointer)).toBe(line);
  });

  it('reads JSON Pointers', () => {
    expect(pointerKeys('/spec/a~1b/m~0n/0')).toEqual(['spec', 'a/b', 'm~n', '0']);
    expect(pointerKeys('')).toEqual([]);
  });

  it.each([
    { object: { spec: { name: 'Ada', age: 'x' } }, problems: [{ pointer: '/spec/age', message: 'must be integer' }] },
    { object: { spec: { name: 'Ada', age: -1 } }, problems: [{ pointer: '/spec/age', message: 'must be >= 0' }] },
    { object: { spec: { name: 'Ada', age: 151 } }, problems: [{ pointer: '/spec/age', message: 'must be <= 150' }] },
    {
      object: { spec: { name: 'Ada', gender: 'X' } },
      problems: [{ pointer: '/spec/gender', message: 'must be one of: "MALE", "FEMALE"' }],
    },
    {
      object: { spec: { name: 'Adelaide' } },
      problems: [{ pointer: '/spec/name', message: 'must be at most 5 characters long' }],
    },
    { object: { spec: { name: 'Ada', x: 1 } }, problems: [{ pointer: '/spec/x', message: 'is not a known field' }] },
    { object: { metadata: { name: 'a' } }, problems: [{ pointer: '/spec', message: 'is required' }] },
    {
      object: { spec: { name: 'Ada', otherPerson: { kind: 'Person', spec: { age: 2 } } } },
      problems: [{ pointer: '/spec/otherPerson/spec/name', message: 'is required' }],
    },
    // apiVersion, kind and metadata are svc's to check, as on the server.
    { object: { apiVersion: 'a/v1', kind: 'Person', metadata: { name: 'a' }, spec: { name: 'Ada' } }, problems: [] },
  ])('checks $object against the schema in the words svc uses', ({ object, problems }) => {
    expect(checkAgainstSchema(object, SCHEMA)).toEqual(problems);
  });

  it('marks schema errors and syntax errors at their lines', () => {
    const text = 'kind: Person\nspec:\n  name: Ada\n  age: old\n  colour: red\n';
    expect(yamlDiagnostics(text, SCHEMA).map(({ line, path, message }) => ({ line, path, message }))).toEqual([
      { line: 4, path: 'spec.age', message: 'must be integer' },
      { line: 5, path: 'spec.colour', message: 'is not a known field' },
    ]);
    expect(
      yamlDiagnostics('spec:\n  name: Ada\n  age: 1: 2\n', SCHEMA).map(({ line, message }) => ({ line, message })),
    ).toEqual([{ line: 3, message: 'Nested mappings are not allowed in compact mappings' }]);
    // Without a schema only the syntax is checked.
    expect(yamlDiagnostics('spec:\n  age: old\n', undefined)).toEqual([]);
  });
});
