/**
 * `defineRoute`: a custom route's body typed from its body schema. The type assertions are checked by
 * `npm run typecheck` (tsc over the tests), the value ones by vitest.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineRoute, type RouteRequest } from './routes.js';

const NEW_NOTE = {
  type: 'object',
  required: ['title', 'tags'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', maxLength: 80 },
    words: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string', enum: ['draft', 'public'] } },
  },
} as const;

describe('defineRoute', () => {
  it('gives the handler the body its schema describes, and returns the route as declared', async () => {
    const route = defineRoute({
      apiVersion: 'notes.example.com/v1',
      method: 'POST',
      path: '/notes',
      schema: { body: NEW_NOTE },
      handler(request) {
        expectTypeOf(request.body).toEqualTypeOf<{
          title: string;
          words?: number;
          tags: ('draft' | 'public')[];
        }>();
        return { title: request.body.title.toUpperCase(), tags: request.body.tags.length };
      },
    });
    expect(route.path).toBe('/notes');
    expect(route.schema?.body).toBe(NEW_NOTE);
    const request = { body: { title: 'hello', tags: ['draft'] } } as RouteRequest;
    expect(await route.handler(request)).toEqual({ title: 'HELLO', tags: 1 });
  });

  it('leaves the body unknown on a route without a body schema', () => {
    defineRoute({
      apiVersion: 'notes.example.com/v1',
      method: 'GET',
      path: '/notes/count',
      handler(request) {
        expectTypeOf(request.body).toBeUnknown();
        return 0;
      },
    });
  });

  it('refuses, at compile time, a handler that reads a field the schema does not have', () => {
    defineRoute({
      apiVersion: 'notes.example.com/v1',
      method: 'POST',
      path: '/notes',
      schema: { body: NEW_NOTE },
      handler(request) {
        // @ts-expect-error `author` is not in NEW_NOTE, so it is not on the body.
        return request.body.author;
      },
    });
  });
});
