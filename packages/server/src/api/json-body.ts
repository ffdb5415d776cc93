import { badRequest } from '@svc/plugin-api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonTextProblem } from '../objects/json-limits.js';

type Done = (error: Error | null, body?: unknown) => void;

/**
 * The parser of every JSON media type svc reads: the nesting and text limits first (json-limits.ts), then the
 * framework's own parser, which refuses `__proto__` and `constructor` keys.
 */
export function jsonBodyParser(app: Pick<FastifyInstance, 'getDefaultJsonParser'>) {
  const json = app.getDefaultJsonParser('error', 'error');
  // Registered with `parseAs: 'string'`, so the body always arrives as a string.
  return (request: FastifyRequest, body: string | Buffer, done: Done): void => {
    // A DELETE may send no options under a JSON content type (Kubernetes clients do): that is no body, not an error.
    if (body === '' && request.method === 'DELETE') {
      done(null, undefined);
      return;
    }
    const problem = jsonTextProblem(body as string);
    if (problem !== undefined) {
      done(badRequest(problem));
      return;
    }
    // biome-ignore lint/nursery/noFloatingPromises: called with `done`, Fastify's default parser returns nothing.
    json(request, body as string, done);
  };
}
