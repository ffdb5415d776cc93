import { badRequest } from '@svc/plugin-api';
import type { FastifyRequest } from 'fastify';
import type { DynamicRouter } from './dynamic-router.js';
import type { HttpContext } from './http-context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the catch-alls that dispatch into the runtime router (app.ts). */
    runtimeRouter?: boolean;
  }
}

/**
 * The kernel's one decision on `dryRun` (Kubernetes' "validate, admit and answer, store nothing"): a write may ask for
 * it only on a route that declares it honours it (`DynamicRoute.dryRun`: the generated model routes, and the core and
 * plugin routes that say so). On any other write (every method but GET and HEAD), the query parameter `dryRun`, or a
 * DELETE body's DeleteOptions `dryRun`, is a 400 before the handler runs, so no route can do for real what was asked
 * as a trial. Routes of the framework outside the runtime router (`/login`, `/logout`) honour none. A path no route
 * serves is left to its 404.
 */
export function unhonouredDryRun(router: DynamicRouter<HttpContext>, request: FastifyRequest): Error | undefined {
  if (request.method === 'GET' || request.method === 'HEAD' || request.is404) return undefined;
  const where = dryRunAsked(request);
  if (!where) return undefined;
  if (request.routeOptions.config?.runtimeRouter) {
    const found = router.find(request.method, request.target.routePath);
    if (!found || found.route.dryRun) return undefined;
  }
  return badRequest(
    `${where} is not supported by ${request.method} ${request.target.path}: this request cannot be tried without ` +
      'being carried out, so nothing was done; send it without dryRun',
  );
}

/** Where the request asks for a dry run, named as the client wrote it; undefined when it does not. */
function dryRunAsked(request: FastifyRequest): string | undefined {
  if (request.target.query.dryRun !== undefined) return 'the query parameter dryRun';
  const body = request.body;
  if (request.method === 'DELETE' && typeof body === 'object' && body !== null && 'dryRun' in body) {
    return 'DeleteOptions dryRun';
  }
  return undefined;
}
