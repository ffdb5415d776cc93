import { badRequest } from '@svc/plugin-api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseDocument } from 'yaml';
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

/**
 * The parser of server-side apply's `application/apply-patch+yaml` (YAML, or JSON, which is YAML): one document, read
 * into plain data and then handed to the JSON parser as JSON, so the same limits and key checks apply.
 */
export function applyBodyParser(app: Pick<FastifyInstance, 'getDefaultJsonParser'>) {
  const json = jsonBodyParser(app);
  return (request: FastifyRequest, body: string | Buffer, done: Done): void => {
    // Aliases are refused: a few bytes of YAML could otherwise expand into a huge object.
    const document = parseDocument(body as string, { uniqueKeys: true });
    const error = document.errors[0];
    if (error) {
      done(badRequest(`the apply configuration is not valid YAML: ${error.message.split('\n')[0]}`));
      return;
    }
    let data: unknown;
    try {
      data = document.toJS({ maxAliasCount: 0 });
    } catch (caught) {
      done(badRequest(`the apply configuration could not be read: ${(caught as Error).message}`));
      return;
    }
    json(request, JSON.stringify(data ?? null), done);
  };
}
