import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { person, personModel, personSchema } from './person.suite.js';
import { compileModelSchema } from './schema.js';

const validatePerson = compileModelSchema(personModel());

describe('compileModelSchema: the seed Person', () => {
  it.each([
    ['a full person', { name: 'Alice', age: 30, gender: 'FEMALE' }],
    ['an empty spec', {}],
    ['the age bounds', { age: 0 }],
    ['age 150', { age: 150 }],
    ['a 100 character name', { name: 'n'.repeat(100) }],
    ['a nested person', { otherPerson: person({ name: 'Bob', otherPerson: person({ age: 1 }, 'carol') }, 'bob') }],
    ['a nested person without apiVersion, kind, metadata', { otherPerson: { spec: { age: 3 } } }],
  ])('accepts %s', (_name, spec) => expect(validatePerson(person(spec))).toEqual([]));

  it.each([
    ['age above 150', { age: 151 }, [{ path: '/spec/age', message: 'must be <= 150' }]],
    ['negative age', { age: -1 }, [{ path: '/spec/age', message: 'must be >= 0' }]],
    ['fractional age', { age: 1.5 }, [{ path: '/spec/age', message: 'must be integer' }]],
    ['age as a string', { age: '30' }, [{ path: '/spec/age', message: 'must be integer' }]],
    [
      'name too long',
      { name: 'n'.repeat(101) },
      [{ path: '/spec/name', message: 'must be at most 100 characters long' }],
    ],
    ['name not a string', { name: 7 }, [{ path: '/spec/name', message: 'must be string' }]],
    ['unknown gender', { gender: 'OTHER' }, [{ path: '/spec/gender', message: 'must be one of: "MALE", "FEMALE"' }]],
    ['unknown field', { height: 180 }, [{ path: '/spec/height', message: 'is not a known field' }]],
    ['bad email format', { email: 'nope' }, [{ path: '/spec/email', message: 'must match format "email"' }]],
    [
      'errors inside a nested person',
      { otherPerson: person({ age: 200, gender: 'X' }, 'bob') },
      [
        { path: '/spec/otherPerson/spec/age', message: 'must be <= 150' },
        { path: '/spec/otherPerson/spec/gender', message: 'must be one of: "MALE", "FEMALE"' },
      ],
    ],
    [
      'a nested person without spec',
      { otherPerson: { metadata: { name: 'x' } } },
      [{ path: '/spec/otherPerson/spec', message: 'is required' }],
    ],
    [
      'nested two levels',
      { otherPerson: { spec: { otherPerson: { spec: { age: -5 } } } } },
      [{ path: '/spec/otherPerson/spec/otherPerson/spec/age', message: 'must be >= 0' }],
    ],
  ])('rejects %s', (_name, spec, errors) => expect(validatePerson(person(spec))).toEqual(errors));

  it.each([
    ['missing spec', { apiVersion: 'x', kind: 'Person', metadata: {} }, [{ path: '/spec', message: 'is required' }]],
    ['spec not an object', { spec: [] }, [{ path: '/spec', message: 'must be object' }]],
    ['unknown top-level field', { spec: {}, extra: 1 }, [{ path: '/extra', message: 'is not a known field' }]],
    [
      'status of the wrong type',
      { spec: {}, status: { phase: 1 } },
      [{ path: '/status/phase', message: 'must be string' }],
    ],
    ['the body not an object', 'x', [{ path: '', message: 'must be object' }]],
  ])('rejects %s', (_name, body, errors) => expect(validatePerson(body)).toEqual(errors));

  it('neither requires nor constrains apiVersion, kind and metadata', () => {
    expect(validatePerson({ spec: {} })).toEqual([]);
    expect(validatePerson({ apiVersion: 1, kind: [], metadata: 'x', spec: {} })).toEqual([]);
  });

  it('reports every error at once', () => {
    expect(
      validatePerson(person({ age: 151, name: 1, gender: 'X', extra: true }))
        .map((e) => e.path)
        .sort(),
    ).toEqual(['/spec/age', '/spec/extra', '/spec/gender', '/spec/name']);
  });

  it('fills in defaults, also in nested persons', () => {
    const body = person({ otherPerson: { spec: {} } });
    expect(validatePerson(body)).toEqual([]);
    expect(body.spec).toEqual({ nickname: 'none', otherPerson: { spec: { nickname: 'none' } } });
  });

  it('does not modify the definition', () => {
    const before = JSON.stringify(personSchema);
    compileModelSchema(personModel());
    expect(JSON.stringify(personSchema)).toBe(before);
  });

  it('answers an error, not a crash, for a body nested too deeply', () => {
    let body: Record<string, unknown> = { spec: {} };
    for (let i = 0; i < 100_000; i++) body = { spec: { otherPerson: body } };
    expect(validatePerson(body)).toEqual([{ path: '', message: 'is nested too deeply to validate' }]);
  });
});

describe('compileModelSchema: other schemas', () => {
  const compile = (schema: Record<string, unknown> | undefined) =>
    compileModelSchema(personModel({ schema: schema as Record<string, unknown> }));

  it('accepts any object when the model has no schema', () => {
    expect(compile(undefined)({ anything: 1 })).toEqual([]);
  });

  it('treats a root delegating to $defs like the root itself', () => {
    const validate = compile({
      $ref: '#/$defs/Thing',
      $defs: {
        Thing: {
          type: 'object',
          required: ['metadata', 'spec'],
          additionalProperties: false,
          properties: { spec: { type: 'object' } },
        },
      },
    });
    expect(validate({ metadata: {}, spec: {} })).toEqual([]);
    expect(validate({ metadata: {} })).toEqual([{ path: '/spec', message: 'is required' }]);
  });

  it.each([
    [
      'a union type',
      { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: ['string', 'null'] } } } } },
      { spec: { a: 1 } },
      '/spec/a',
      'must be string or null',
    ],
    ['const', { type: 'object', properties: { spec: { const: 1 } } }, { spec: 2 }, '/spec', 'must be 1'],
    [
      'dependentRequired',
      {
        type: 'object',
        properties: { spec: { type: 'object', properties: { a: {}, b: {} }, dependentRequired: { a: ['b'] } } },
      },
      { spec: { a: 1 } },
      '/spec/b',
      'is required when "a" is present',
    ],
    [
      'unevaluatedProperties',
      { type: 'object', properties: { spec: { type: 'object', properties: { a: {} }, unevaluatedProperties: false } } },
      { spec: { 'x/y': 1 } },
      '/spec/x~1y',
      'is not a known field',
    ],
    ['a root without type', { properties: { spec: { type: 'string' } } }, { spec: 1 }, '/spec', 'must be string'],
  ])('maps %s', (_name, schema, body, path, message) => {
    expect(compile(schema)(body)).toEqual([{ path, message }]);
  });

  it.each([
    [
      'an unknown keyword',
      { type: 'object', properties: { spec: { type: 'object', maxLenght: 3 } } },
      /strict mode: unknown keyword: "maxLenght"/,
    ],
    [
      'a wrong keyword value',
      { type: 'object', properties: { spec: { type: 'object', minProperties: -1 } } },
      /minProperties/,
    ],
    ['an unknown type', { type: 'object', properties: { spec: { type: 'thing' } } }, /type/],
    [
      'an unknown format',
      { type: 'object', properties: { spec: { type: 'string', format: 'shoe-size' } } },
      /unknown format "shoe-size"/,
    ],
    ['a dangling $ref', { type: 'object', properties: { spec: { $ref: '#/$defs/Nope' } } }, /can't resolve reference/],
    ['a root that is not an object schema', { type: 'array' }, /type must be "object"/],
    ['a schema that is not an object', [] as unknown as Record<string, unknown>, /must be a JSON object/],
  ])('throws for %s, naming the model', (_name, schema, reason) => {
    expect(() => compile(schema)).toThrow(/^model Person \(people\.svc\.run\/v1alpha1\): invalid schema: /);
    expect(() => compile(schema)).toThrow(reason);
  });
});

describe('compileModelSchema: memory', () => {
  it('frees a compiled model once it is dropped (register/unregister at runtime)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const cycle = (n: number) => {
      for (let i = 0; i < n; i++) compileModelSchema(personModel())(person({ age: i % 150 }));
    };
    cycle(50); // warm up: meta-schema, JIT
    gc();
    const before = process.memoryUsage().heapUsed;
    cycle(1000);
    gc();
    const growth = process.memoryUsage().heapUsed - before;
    // What remains is V8's own caches, levelling off, well under the bound; a shared Ajv instance that keeps every
    // schema grows past it.
    expect(growth).toBeLessThan(4 * 1024 * 1024);
  });
});
