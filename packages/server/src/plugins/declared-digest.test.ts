import { DECLARED_DIGEST_ANNOTATION, type ExtensionObject } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import { contentDigest, storedDigest } from './declared-digest.js';

const ada: ExtensionObject = {
  apiVersion: 'people.svc.run/v1alpha1',
  kind: 'Person',
  metadata: { name: 'ada', labels: { 'plugin.svc.run/plugin-name': 'people' } },
  spec: { name: 'Ada Lovelace', age: 36 },
};

describe('the digest of what a declared object says', () => {
  it('is the same whatever the key order, status, server-kept metadata, finalizers and its own record', () => {
    const stored: ExtensionObject = {
      status: { ageGroup: 'adult' },
      spec: { age: 36, name: 'Ada Lovelace' },
      kind: 'Person',
      apiVersion: 'people.svc.run/v1alpha1',
      metadata: {
        name: 'ada',
        uid: 'u-1',
        version: 7,
        resourceVersion: '42',
        creationTimestamp: '2026-01-02T03:04:05.678Z',
        finalizers: ['people.svc.run/farewell'],
        labels: { 'plugin.svc.run/plugin-name': 'people' },
        annotations: { [DECLARED_DIGEST_ANNOTATION]: 'sha256:whatever' },
      },
    };
    expect(contentDigest(stored)).toBe(contentDigest(ada));
    expect(contentDigest(ada)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('changes with the spec, a label, an annotation or the name', () => {
    const digest = contentDigest(ada);
    expect(contentDigest({ ...ada, spec: { name: 'Ada Lovelace', age: 99 } })).not.toBe(digest);
    expect(contentDigest({ ...ada, metadata: { ...ada.metadata, labels: { team: 'a' } } })).not.toBe(digest);
    expect(contentDigest({ ...ada, metadata: { ...ada.metadata, annotations: { note: 'x' } } })).not.toBe(digest);
    expect(contentDigest({ ...ada, metadata: { ...ada.metadata, name: 'ada2' } })).not.toBe(digest);
  });

  it("is taken as the object will be stored: with its model's schema defaults, leaving the declaration as it was", () => {
    const model = normalizeModelDefinition(
      {
        group: 'people.svc.run',
        version: 'v1alpha1',
        kind: 'Person',
        plural: 'persons',
        schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                age: { type: 'integer' },
                team: { type: 'string', default: 'x' },
              },
            },
          },
        },
      },
      { kind: 'plugin', name: 'people' },
    );
    const withDefault = { ...ada, spec: { name: 'Ada Lovelace', age: 36, team: 'x' } };
    expect(storedDigest(model, ada)).toBe(contentDigest(withDefault));
    expect(ada.spec).toEqual({ name: 'Ada Lovelace', age: 36 });
    expect(storedDigest(undefined, ada)).toBe(contentDigest(ada));
  });
});
