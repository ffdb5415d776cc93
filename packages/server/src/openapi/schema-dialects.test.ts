import { describe, expect, it } from 'vitest';
import { rewriteRef, schemaComponents } from './schema-dialects.js';

// JSON Schema's `if`/`then` keywords, built without an object literal's `then` (which linters read as a thenable).
const ifThen = (ifSchema: object, thenSchema: object) =>
  Object.fromEntries([
    ['if', ifSchema],
    ['then', thenSchema],
  ]);

const N = 'run.svc.people.v1alpha1.Person';
const REF = `#/components/schemas/${N}`;

/** One schema node in, the 3.0 node out (as the single component of a schema whose root is that node). */
const to30 = (schema: unknown) => schemaComponents(schema, N, '3.0')[N];

describe('JSON Schema 2020-12 as OpenAPI 3.0', () => {
  it.each([
    [
      'a plain object stays',
      { type: 'object', properties: { a: { type: 'string', maxLength: 3 } } },
      { type: 'object', properties: { a: { type: 'string', maxLength: 3 } } },
    ],
    ['a type with null is nullable', { type: ['string', 'null'] }, { type: 'string', nullable: true }],
    ['two types are an anyOf', { type: ['string', 'integer'] }, { anyOf: [{ type: 'string' }, { type: 'integer' }] }],
    ['null alone is the null enum', { type: 'null' }, { nullable: true, enum: [null] }],
    ['const is an enum of one', { const: 'MALE' }, { enum: ['MALE'] }],
    ['examples become one example', { type: 'integer', examples: [3, 4] }, { type: 'integer', example: 3 }],
    [
      'a numeric exclusiveMinimum is the boolean form',
      { type: 'number', exclusiveMinimum: 0 },
      { type: 'number', minimum: 0, exclusiveMinimum: true },
    ],
    [
      'a looser exclusive bound leaves the minimum',
      { type: 'number', minimum: 5, exclusiveMinimum: 1 },
      { type: 'number', minimum: 5 },
    ],
    [
      'an exclusiveMaximum too',
      { type: 'number', exclusiveMaximum: 10 },
      { type: 'number', maximum: 10, exclusiveMaximum: true },
    ],
    [
      'true and false schemas',
      { properties: { any: true, none: false } },
      { properties: { any: {}, none: { not: {} } } },
    ],
    ['an empty required list is left out', { type: 'object', required: [] }, { type: 'object' }],
    ['an array without items gets any items', { type: 'array' }, { type: 'array', items: {} }],
    [
      '2020-12 keywords 3.0 lacks are left out',
      {
        type: 'object',
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $comment: 'c',
        ...ifThen({ required: ['a'] }, { required: ['b'] }),
        dependentRequired: { a: ['b'] },
        patternProperties: { '^x': {} },
        unevaluatedProperties: false,
      },
      { type: 'object' },
    ],
    [
      'vendor extensions stay',
      { type: 'string', 'x-kubernetes-int-or-string': true },
      { type: 'string', 'x-kubernetes-int-or-string': true },
    ],
    [
      'additionalProperties as a schema',
      { type: 'object', additionalProperties: { type: ['integer', 'null'] } },
      { type: 'object', additionalProperties: { type: 'integer', nullable: true } },
    ],
    [
      'nested combinators',
      { oneOf: [{ const: 1 }, { type: 'string' }], not: { type: 'null' } },
      { oneOf: [{ enum: [1] }, { type: 'string' }], not: { nullable: true, enum: [null] } },
    ],
    ['a reference to the root', { properties: { other: { $ref: '#' } } }, { properties: { other: { $ref: REF } } }],
    [
      'a reference with siblings is an allOf',
      { properties: { other: { $ref: '#', description: 'another' } } },
      { properties: { other: { description: 'another', allOf: [{ $ref: REF }] } } },
    ],
  ])('%s', (_name, input, expected) => {
    expect(to30(input)).toEqual(expected);
  });

  it('makes each definition a component, and points references at it', () => {
    const schema = {
      type: 'object',
      properties: { spec: { $ref: '#/$defs/Spec' }, tags: { $ref: '#/definitions/Tag%20List' } },
      $defs: { Spec: { type: 'object', properties: { self: { $ref: '#/$defs/Spec' } } } },
      definitions: { 'Tag List': { type: 'array', items: { type: 'string' } } },
    };
    expect(schemaComponents(schema, N, '3.0')).toEqual({
      [N]: {
        type: 'object',
        properties: { spec: { $ref: `${REF}.Spec` }, tags: { $ref: `${REF}.Tag_List` } },
      },
      [`${N}.Spec`]: { type: 'object', properties: { self: { $ref: `${REF}.Spec` } } },
      [`${N}.Tag_List`]: { type: 'array', items: { type: 'string' } },
    });
  });
});

describe('JSON Schema 2020-12 as OpenAPI 3.1', () => {
  it('keeps every keyword, and only moves definitions and rewrites references', () => {
    const schema = {
      type: ['string', 'null'],
      const: 'x',
      ...ifThen({ minLength: 1 }, { maxLength: 9 }),
      $defs: { Other: { $ref: '#' } },
      examples: [{ $ref: 'not a reference: an example value' }],
    };
    expect(schemaComponents(schema, N, '3.1')).toEqual({
      [N]: {
        type: ['string', 'null'],
        const: 'x',
        ...ifThen({ minLength: 1 }, { maxLength: 9 }),
        examples: [{ $ref: 'not a reference: an example value' }],
      },
      [`${N}.Other`]: { $ref: REF },
    });
  });
});

describe('references', () => {
  it.each([
    ['#', REF],
    ['#/$defs/Spec', `${REF}.Spec`],
    ['#/$defs/Spec/properties/a', `${REF}.Spec/properties/a`],
    ['#/definitions/a~1b', `${REF}.a_b`],
    ['#/properties/spec', `${REF}/properties/spec`],
    ['https://example.com/schema.json', 'https://example.com/schema.json'],
  ])('%s points at %s', (ref, expected) => {
    expect(rewriteRef(ref, N)).toBe(expected);
  });
});
