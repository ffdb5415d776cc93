import type { CustomRoute } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { customRouteProblem, customRoutes } from './custom-routes.js';

const route = (extra: Partial<CustomRoute> = {}): Partial<CustomRoute> => ({
  apiVersion: 'console.api.people.svc.run/v1alpha1',
  method: 'POST',
  path: '/greetings',
  handler: () => ({}),
  ...extra,
});

const GREETING = { type: 'object', required: ['words'], properties: { words: { type: 'string' } } };

describe('a custom route declaration', () => {
  it.each([
    ['no schema', route(), undefined],
    [
      'a body and a response schema',
      route({ schema: { body: { type: 'object' }, response: { type: 'string' } } }),
      undefined,
    ],
    [
      'a schema that is not an object',
      route({ schema: 'object' as never }),
      'schema must be an object with optional body and response JSON Schemas',
    ],
    [
      'a body schema that does not compile',
      route({ schema: { body: { type: 'thing' } } }),
      /^schema\.body: invalid schema: /,
    ],
    [
      'a response schema that does not compile',
      route({ schema: { response: { minLength: -1 } } }),
      /^schema\.response: invalid schema: /,
    ],
    ['no apiVersion', route({ apiVersion: '' }), 'it declares no apiVersion (<group>/<version>), so it is not mounted'],
  ])('with %s: %s', (_name, declared, expected) => {
    const problem = customRouteProblem(declared);
    if (expected instanceof RegExp) expect(problem).toMatch(expected);
    else expect(problem).toBe(expected);
  });

  it('gives the router its summary and schemas for the OpenAPI documents, once per method', () => {
    const mounted = customRoutes(
      'plugin:people',
      route({
        method: ['POST', 'PUT'],
        summary: 'Greet',
        schema: { body: GREETING },
      }) as CustomRoute,
    );
    expect(mounted.map((r) => [r.method, r.path, r.doc])).toEqual([
      ['POST', '/apis/console.api.people.svc.run/v1alpha1/greetings', { summary: 'Greet', requestBody: GREETING }],
      ['PUT', '/apis/console.api.people.svc.run/v1alpha1/greetings', { summary: 'Greet', requestBody: GREETING }],
    ]);
    expect(customRoutes('plugin:people', route() as CustomRoute)[0]!.doc).toBeUndefined();
  });
});
