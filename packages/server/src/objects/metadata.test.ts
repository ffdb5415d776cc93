import { describe, expect, it } from 'vitest';
import {
  generateName,
  MAX_ANNOTATIONS_BYTES,
  MAX_LABELS,
  MAX_LABELS_BYTES,
  validateAnnotations,
  validateClientMetadata,
  validateGenerateName,
  validateLabels,
  validateName,
  withFinalizers,
} from './metadata.js';
import { escapePointerToken } from './pointer.js';

const paths = (errors: { path: string }[]) => errors.map((e) => e.path);
const messages = (errors: { message: string }[]) => errors.map((e) => e.message).join(' | ');

describe('validateName', () => {
  it.each([['a'], ['my-object-1'], ['0abc'], ['a'.repeat(253)]])('accepts %j', (name) =>
    expect(validateName(name)).toEqual([]),
  );

  it.each([
    ['', /must not be empty/],
    ['a'.repeat(254), /at most 253 characters \(has 254\)/],
    ['Upper', /only lowercase letters, digits and '-'/],
    ['with.dot', /only lowercase letters/],
    ['under_score', /only lowercase letters/],
    ['-lead', /start and end with a lowercase letter or digit/],
    ['trail-', /start and end/],
    [42, /must be a string/],
    [null, /must be a string/],
  ])('rejects %j', (name, message) => {
    const errors = validateName(name);
    expect(errors.length).toBeGreaterThan(0);
    expect(paths(errors).every((p) => p === '/metadata/name')).toBe(true);
    expect(messages(errors)).toMatch(message);
  });

  it('reports every failed rule and uses the given path', () => {
    const errors = validateName('-Bad', '/spec/ref');
    expect(errors).toHaveLength(2);
    expect(paths(errors)).toEqual(['/spec/ref', '/spec/ref']);
  });
});

describe('generateName / validateGenerateName', () => {
  it('appends 5 random lowercase alphanumerics', () => {
    const names = new Set(Array.from({ length: 50 }, () => generateName('person-')));
    for (const name of names) {
      expect(name).toMatch(/^person-[a-z0-9]{5}$/);
      expect(validateName(name)).toEqual([]);
    }
    expect(names.size).toBeGreaterThan(45);
  });

  it('truncates a long prefix so the result fits 253 characters', () => {
    const name = generateName('p'.repeat(300));
    expect(name).toHaveLength(253);
    expect(validateName(name)).toEqual([]);
  });

  it.each([
    ['person-', 0],
    ['p', 0],
    ['p'.repeat(300), 0],
    ['', 1],
    ['-x', 1],
    ['Person-', 1],
    [7, 1],
  ])('validateGenerateName(%j) has %i errors', (prefix, count) => {
    const errors = validateGenerateName(prefix);
    expect(errors).toHaveLength(count);
    if (count) expect(errors[0]!.path).toBe('/metadata/generateName');
  });
});

describe('validateLabels', () => {
  const open = { allowUnprefixed: true };
  const plugin = { allowUnprefixed: false };
  const at = (key: string) => `/metadata/labels/${escapePointerToken(key)}`;

  it.each([
    [{}, open],
    [undefined, open],
    [{ app: 'web', tier: '' }, open],
    [{ 'app.example.com/tier': 'front_end.v1' }, plugin],
    [{ 'people.svc.run/kind': 'x' }, plugin],
    [{ 'console.api.people.svc.run/x': 'y' }, plugin],
    [{ 'svc.run/role-template': 'true', 'svc.run/hidden': 'true' }, plugin],
    [{ 'rbac.authorization.svc.run/aggregate-to-editor': 'true' }, plugin],
    [{ 'plugin.svc.run/plugin-name': 'people' }, plugin],
    [{ 'content.svc.run/owner': 'alice' }, plugin],
    [{ 'a/B_c.d-e': 'v' }, plugin],
    [{ [`a/${'n'.repeat(63)}`]: 'v'.repeat(63) }, plugin],
    [{ [`${'p'.repeat(63)}.${'q'.repeat(63)}/n`]: 'v' }, plugin],
    [{ 'mysvc.run/x': 'v' }, plugin],
  ])('accepts %j', (labels, options) => expect(validateLabels(labels, options)).toEqual([]));

  it.each([
    ['unprefixed key from a plugin', { app: 'web' }, plugin, at('app'), /unprefixed keys cannot be used by plugins/],
    [
      'undefined key under svc.run/',
      { 'svc.run/foo': 'x' },
      open,
      at('svc.run/foo'),
      /reserved prefix "svc\.run\/".*svc\.run\/foo|svc\.run\/foo.*reserved/,
    ],
    [
      'undefined rbac key',
      { 'rbac.authorization.svc.run/role': 'x' },
      open,
      at('rbac.authorization.svc.run/role'),
      /reserved prefix/,
    ],
    [
      'aggregate-to without a role',
      { 'rbac.authorization.svc.run/aggregate-to-': 'x' },
      open,
      at('rbac.authorization.svc.run/aggregate-to-'),
      /reserved prefix/,
    ],
    [
      'service subdomain',
      { 'api.console.svc.run/x': 'y' },
      open,
      at('api.console.svc.run/x'),
      /reserved prefix "api\.console\.svc\.run\/"/,
    ],
    ['security domain', { 'security.svc.run/anything': 'y' }, open, at('security.svc.run/anything'), /reserved prefix/],
    ['two slashes', { 'a/b/c': 'v' }, open, at('a/b/c'), /at most one '\/'/],
    ['empty name', { 'a.com/': 'v' }, open, at('a.com/'), /name must not be empty/],
    ['empty prefix', { '/x': 'v' }, open, at('/x'), /prefix must not be empty/],
    ['uppercase prefix', { 'Example.com/x': 'v' }, open, at('Example.com/x'), /prefix must be a DNS subdomain/],
    ['long prefix', { [`${'a'.repeat(254)}/x`]: 'v' }, open, at(`${'a'.repeat(254)}/x`), /prefix must be at most 253/],
    ['long name', { ['n'.repeat(64)]: 'v' }, open, at('n'.repeat(64)), /name must be at most 63/],
    ['name ends with dash', { 'x-': 'v' }, open, at('x-'), /start and end with a letter or digit/],
    ['key with tilde', { 'a~b': 'v' }, open, '/metadata/labels/a~0b', /name must start and end/],
    ['long value', { a: 'v'.repeat(64) }, open, at('a'), /value must be at most 63/],
    ['bad value', { a: '-v' }, open, at('a'), /value must be empty or start and end/],
    ['value with space', { a: 'a b' }, open, at('a'), /value must be empty/],
    ['non-string value', { a: 1 }, open, at('a'), /value must be a string/],
    ['null value', { a: null }, open, at('a'), /value must be a string/],
    ['array map', ['a'], open, '/metadata/labels', /must be an object mapping strings to strings/],
    ['null map', null, open, '/metadata/labels', /must be an object/],
    ['string map', 'a=b', open, '/metadata/labels', /must be an object/],
  ])('rejects %s', (_name, labels, options, path, message) => {
    const errors = validateLabels(labels, options);
    expect(paths(errors)).toContain(path);
    expect(messages(errors)).toMatch(message);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('rejects the key %s', (key) => {
    const labels: unknown = JSON.parse(`{"${key}": "x"}`);
    expect(validateLabels(labels, open)).toEqual([
      { path: `/metadata/labels/${key}`, message: `"${key}" is not allowed as a key` },
    ]);
    expect(validateAnnotations(labels)).toEqual([
      { path: `/metadata/annotations/${key}`, message: `"${key}" is not allowed as a key` },
    ]);
  });
});

describe('the size of labels', () => {
  const open = { allowUnprefixed: true };
  const labels = (count: number, value = 'v') =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`l${i}`, value]));

  it(`accepts ${MAX_LABELS} labels and refuses one more, in one error however many there are`, () => {
    expect(validateLabels(labels(MAX_LABELS), open)).toEqual([]);
    expect(validateLabels(labels(MAX_LABELS + 1), open)).toEqual([
      { path: '/metadata/labels', message: `must have at most ${MAX_LABELS} labels (has ${MAX_LABELS + 1})` },
    ]);
    // 150,000 labels, every one of them invalid too: still the one error.
    expect(validateLabels(labels(150_000, '-bad-'), open)).toEqual([
      { path: '/metadata/labels', message: 'must have at most 256 labels (has 150000)' },
    ]);
  });

  it(`refuses keys and values over ${MAX_LABELS_BYTES} bytes in all`, () => {
    // 200 labels of a 253-character prefix, a 63-character name and a 63-character value: 76,000 bytes.
    const long = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [
        `${'p'.repeat(250)}${String(i).padStart(3, '0')}/${'n'.repeat(63)}`,
        'v'.repeat(63),
      ]),
    );
    expect(validateLabels(long, open)).toEqual([
      { path: '/metadata/labels', message: `total size of keys and values must be at most 65536 bytes (has 76000)` },
    ]);
    expect(validateLabels(Object.fromEntries(Object.entries(long).slice(0, 172)), open)).toEqual([]);
  });
});

describe('validateAnnotations', () => {
  it.each([
    [{ note: 'anything at all, spaces and / slashes' }],
    [{ 'rbac.authorization.svc.run/ui-permissions': '["a"]', 'security.svc.run/access-token': 'x' }],
    [{ 'kubectl.kubernetes.io/last-applied-configuration': '{}' }],
    [{ big: 'x'.repeat(MAX_ANNOTATIONS_BYTES - 3) }],
  ])('accepts %#', (annotations) => expect(validateAnnotations(annotations)).toEqual([]));

  it.each([
    ['non-string value', { a: 1 }, '/metadata/annotations/a', /value must be a string/],
    ['bad key', { 'a b': 'x' }, '/metadata/annotations/a b', /key name must start and end/],
    [
      'too large',
      { big: 'x'.repeat(MAX_ANNOTATIONS_BYTES) },
      '/metadata/annotations',
      /at most 262144 bytes \(has 262147\)/,
    ],
    [
      'multi-byte values count in bytes',
      { a: 'é'.repeat(MAX_ANNOTATIONS_BYTES / 2) },
      '/metadata/annotations',
      /at most 262144 bytes/,
    ],
    ['not a map', [], '/metadata/annotations', /must be an object/],
    [
      'too large, with bad keys: only the size is named',
      Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`bad key ${i}`, ''])),
      '/metadata/annotations',
      /^total size of keys and values must be at most 262144 bytes \(has \d+\)$/,
    ],
  ])('rejects %s', (_name, annotations, path, message) => {
    const errors = validateAnnotations(annotations);
    expect(paths(errors)).toContain(path);
    expect(messages(errors)).toMatch(message);
  });
});

describe('withFinalizers', () => {
  it.each([
    ['none of its own', undefined, ['a.io/x'], ['a.io/x']],
    ['an empty list', [], ['a.io/x', 'a.io/y'], ['a.io/x', 'a.io/y']],
    ['others first', ['b.io/z'], ['a.io/x'], ['b.io/z', 'a.io/x']],
    ['one already held', ['a.io/y', 'a.io/x'], ['a.io/x', 'a.io/w'], ['a.io/y', 'a.io/x', 'a.io/w']],
    ['all already held', ['a.io/x'], ['a.io/x'], ['a.io/x']],
  ])('%s', (_case, own, added, expected) => {
    expect(withFinalizers(own, added)).toEqual(expected);
  });
});

describe('validateClientMetadata', () => {
  it.each([
    ['create with a name', { name: 'a' }, 'create'],
    ['create with a generateName', { generateName: 'a-' }, 'create'],
    ['update with a version', { name: 'a', version: 3 }, 'update'],
    ['update without a version (the API answers 409)', { name: 'a' }, 'update'],
    ['finalizers', { name: 'a', finalizers: ['example.com/cleanup', 'plain'] }, 'create'],
    ['labels and annotations', { name: 'a', labels: { app: 'x' }, annotations: { note: 'free text' } }, 'create'],
    [
      'server-owned fields are not rejected (they are overwritten)',
      { name: 'a', creationTimestamp: 'nonsense', deletionTimestamp: 5, uid: 1, resourceVersion: 2 },
      'create',
    ],
    ['unknown fields are left alone', { name: 'a', namespace: 'default' }, 'update'],
  ] as const)('accepts %s', (_name, meta, mode) => expect(validateClientMetadata(meta, mode)).toEqual([]));

  it.each([
    ['missing metadata', undefined, 'create', '/metadata', /is required/],
    ['metadata not an object', 'x', 'create', '/metadata', /must be an object/],
    ['metadata an array', [], 'create', '/metadata', /must be an object/],
    ['no name on create', {}, 'create', '/metadata/name', /is required \(or metadata\.generateName\)/],
    ['empty name on create', { name: '' }, 'create', '/metadata/name', /is required/],
    ['no name on update', { generateName: 'a-' }, 'update', '/metadata/name', /is required/],
    ['bad name', { name: 'A' }, 'create', '/metadata/name', /lowercase/],
    ['bad generateName', { generateName: '-a' }, 'create', '/metadata/generateName', /start with/],
    ['fractional version', { name: 'a', version: 1.5 }, 'update', '/metadata/version', /non-negative integer/],
    ['string version', { name: 'a', version: '1' }, 'update', '/metadata/version', /integer/],
    ['negative version', { name: 'a', version: -1 }, 'update', '/metadata/version', /non-negative/],
    ['finalizers not an array', { name: 'a', finalizers: 'x' }, 'create', '/metadata/finalizers', /array of strings/],
    ['finalizer not a string', { name: 'a', finalizers: [1] }, 'create', '/metadata/finalizers/0', /must be a string/],
    [
      'duplicate finalizer',
      { name: 'a', finalizers: ['x', 'x'] },
      'create',
      '/metadata/finalizers/1',
      /duplicate finalizer "x"/,
    ],
    ['malformed finalizer', { name: 'a', finalizers: ['a/b/c'] }, 'create', '/metadata/finalizers/0', /at most one/],
    ['bad label', { name: 'a', labels: { 'svc.run/x': 'y' } }, 'create', '/metadata/labels/svc.run~1x', /reserved/],
    ['bad annotation', { name: 'a', annotations: { a: true } }, 'create', '/metadata/annotations/a', /string/],
  ] as const)('rejects %s', (_name, meta, mode, path, message) => {
    const errors = validateClientMetadata(meta, mode);
    expect(paths(errors)).toContain(path);
    expect(messages(errors)).toMatch(message);
  });

  it('refuses unprefixed labels for extension objects only', () => {
    const meta = { name: 'a', labels: { app: 'x' } };
    expect(validateClientMetadata(meta, 'create')).toEqual([]);
    expect(paths(validateClientMetadata(meta, 'create', { allowUnprefixedLabels: false }))).toEqual([
      '/metadata/labels/app',
    ]);
  });

  it('collects every problem', () => {
    const errors = validateClientMetadata(
      { name: 'B', version: 'x', finalizers: [1], labels: { 'a/b/c': 1 } },
      'update',
    );
    expect(paths(errors)).toEqual([
      '/metadata/name',
      '/metadata/version',
      '/metadata/finalizers/0',
      '/metadata/labels/a~1b~1c',
      '/metadata/labels/a~1b~1c',
    ]);
  });
});
