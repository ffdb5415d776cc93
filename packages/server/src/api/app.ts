import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { notFound } from '@svc/plugin-api';
import type { DynamicRouter } from './dynamic-router.js';
import type { HttpContext } from './http-context.js';
import { sendProblem } from './problem.js';

export const BODY_LIMIT = 4 * 1024 * 1024;

export interface AppOptions {
  logger: Logger;
  router: DynamicRouter<HttpContext>;
}

/**
 * The HTTP kernel: body parsing with prototype-poisoning protection, problem+json for every error, and one catch-all
 * per API prefix that dispatches into the runtime router (generated and plugin routes).
 */
export function createApp({ logger, router }: AppOptions) {
  const app = Fastify({
    loggerInstance: logger,
    // No per-request log lines: they cost more than the request on the hot path; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    // Query strings: repeated keys become arrays (selectors and sort are repeatable).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
  });

  // Only JSON bodies: a text/plain body on a write is a 415, not a string handed to a handler.
  app.removeContentTypeParser('text/plain');
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(['application/json-patch+json', 'application/merge-patch+json'], { parseAs: 'string' }, json);

  app.setErrorHandler((error, request, reply) => sendProblem(reply, request, error));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, request, notFound(`no route for ${request.method} ${request.url.split('?')[0]}`)),
  );

  const dispatch = async (request: FastifyRequest, reply: FastifyReply) => {
    const found = router.find(request.method, request.url);
    if (!found) throw notFound(`no route for ${request.method} ${request.url.split('?')[0]}`);
    await found.route.handler({ request, reply }, found.params);
    return reply;
  };
  for (const prefix of ['/api', '/apis']) {
    app.all(prefix, dispatch);
    app.all(`${prefix}/*`, dispatch);
  }
  return app;
}
