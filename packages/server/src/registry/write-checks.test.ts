import { type ExtensionObject, isApiError } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import { checkLock, checkPatchedName, checkPreconditions, checkUpdateBody, validated } from './write-checks.js';

const stored: ExtensionObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', uid: 'uid-1', version: 3, resourceVersion: '17' },
};

const sent = (metadata: Partial<ExtensionObject['metadata']>): ExtensionObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', ...metadata },
});

/** The reason and detail of what `check` threw, or 'ok'. */
function outcome(check: () => void): string {
  try {
    check();
    return 'ok';
  } catch (error) {
    if (isApiError(error)) return `${error.reason}: ${error.detail}`;
    throw error;
  }
}

describe('checkLock', () => {
  it.each([
    ['the stored version', { version: 3 }, 'ok'],
    ['the stored resourceVersion alone', { resourceVersion: '17' }, 'ok'],
    ['both, as stored', { version: 3, resourceVersion: '17' }, 'ok'],
    ['a number resourceVersion equal to the stored one', { resourceVersion: 17 as unknown as string }, 'ok'],
    ['an older version', { version: 2 }, 'Conflict: Widget "w1" is at metadata.version 3, the request carries 2'],
    ['no version at all', {}, 'Conflict: Widget "w1" is at metadata.version 3, the request carries undefined'],
    ['a version as a string', { version: '3' as unknown as number }, 'Conflict: Widget "w1" is at metadata.version 3'],
    [
      'another resourceVersion',
      { resourceVersion: '16' },
      'Conflict: Widget "w1" is at metadata.resourceVersion 17, the request carries "16"',
    ],
    [
      'the version but another resourceVersion',
      { version: 3, resourceVersion: '16' },
      'Conflict: Widget "w1" is at metadata.resourceVersion 17',
    ],
  ])('with %s: %s', (_, metadata, expected) => {
    expect(outcome(() => checkLock('Widget', stored, sent(metadata)))).toContain(expected);
  });

  it('gives a body that passes the stored version (one sent with only a resourceVersion too)', () => {
    const body = sent({ resourceVersion: '17' });
    checkLock('Widget', stored, body);
    expect(body.metadata.version).toBe(3);
  });
});

describe('checkPreconditions', () => {
  it.each([
    ['none', undefined, 'ok'],
    ['empty', {}, 'ok'],
    ['the stored uid', { uid: 'uid-1' }, 'ok'],
    ['the stored uid and resourceVersion', { uid: 'uid-1', resourceVersion: '17' }, 'ok'],
    [
      'another uid',
      { uid: 'uid-2' },
      'Conflict: Widget "w1" does not meet the precondition: metadata.uid is "uid-1", the request wants "uid-2"',
    ],
    [
      'another resourceVersion',
      { uid: 'uid-1', resourceVersion: '9' },
      'Conflict: Widget "w1" does not meet the precondition: metadata.resourceVersion is "17", the request wants "9"',
    ],
  ])('%s: %s', (_, wanted, expected) => {
    expect(outcome(() => checkPreconditions('Widget', stored, wanted))).toBe(expected);
  });
});

describe('checkUpdateBody', () => {
  it.each([
    ['w1', { version: 3 }, 'ok'],
    ['w1', { resourceVersion: '17' }, 'ok'],
    ['w2', { version: 3 }, 'Invalid: metadata.name "w1" does not match the name in the path "w2"'],
    ['w1', {}, 'Conflict: metadata.version (or metadata.resourceVersion) is required for an update'],
  ])('path %s, metadata %j: %s', (name, metadata, expected) => {
    expect(outcome(() => checkUpdateBody(sent(metadata), name))).toContain(expected);
  });
});

describe('checkPatchedName', () => {
  it.each([
    ['w1', 'ok'],
    ['w2', 'Invalid: a patch cannot change metadata.name'],
  ])('path %s: %s', (name, expected) => {
    expect(outcome(() => checkPatchedName(sent({}), name))).toBe(expected);
  });
});

describe('validated', () => {
  const model = normalizeModelDefinition(
    {
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
    },
    { kind: 'system' },
  );
  let deep: unknown = {};
  for (let i = 0; i < 200; i++) deep = { deeper: deep };

  it.each([
    ['a valid body', { ...sent({}), spec: { size: 1 } }, 'ok'],
    ['a schema violation', { ...sent({}), spec: { size: 'big' } }, 'Invalid: Widget is invalid: /spec/size must be'],
    ['a body nested too deep', { ...sent({}), spec: { deep } }, 'Invalid: Widget nests objects and arrays deeper'],
    ['not an object', [], 'Invalid: Widget is invalid:  must be a JSON object (a Widget)'],
  ])('%s: %s', (_, body, expected) => {
    expect(outcome(() => void validated(model, body, 'create', {}))).toContain(expected);
  });

  it('hands back the body itself, not a copy', () => {
    const body = { ...sent({}), spec: { size: 1 } };
    expect(validated(model, body, 'update', {})).toBe(body);
  });
});
