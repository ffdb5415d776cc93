import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import websocket, { type WebSocket } from '@fastify/websocket';
import { notFound, serviceUnavailable } from '@svc/plugin-api';
import Fastify, { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import { HOST_VERSION } from '../version.js';
import { accessLogHook } from './access-log.js';
import { refusedHost } from './allowed-hosts.js';
import { APPLY_TYPE, applyBodyParser, applyElsewhere } from './apply-body.js';
import { BODY_LIMIT, limitedAnonymousBody } from './body-limits.js';
import { compressAnswer } from './compression.js';
import { corsOptions } from './cors.js';
import type { Drain } from './drain.js';
import { unhonouredDryRun } from './dry-run.js';
import type { DynamicRouter } from './dynamic-router.js';
import type { HttpContext } from './http-context.js';
import { jsonBodyParser } from './json-body.js';
import { PROTOBUF_BODY_LIMIT, PROTOBUF_TYPE, protobufBodyParser, protobufElsewhere } from './kubernetes-protobuf.js';
import { lazyChildLoggerFactory } from './lazy-logger.js';
import type { LongRunningRequests } from './long-running.js';
import { answerClientError, sendProblem } from './problem.js';
import { echoRequestId, requestIdOf } from './request-id.js';
import { applySecurityHeaders } from './security-headers.js';
import { querystringParser, rewriteToTarget, targetOf, unparsableTarget } from './targets.js';
import { unreadBodyDrain } from './unread-body.js';

const VERSION_INFO = JSON.stringify({
  major: '1',
  minor: '33',
  gitVersion: `v1.33.0+svc.${HOST_VERSION}`,
  gitCommit: '',
  gitTreeState: '',
  buildDate: '',
  goVersion: '',
  compiler: 'node',
  platform: `${process.platform}/${process.arch}`,
  svcVersion: HOST_VERSION,
});

export interface AppOptions {
  logger: Logger;
  router: DynamicRouter<HttpContext>;
  /** Which peers' `X-Forwarded-For` names the client (the sign-in throttle counts per client); default none. */
  trustProxy?: boolean | number | string;
  /** One info line per answered request (access-log.ts); default on. */
  accessLog?: boolean;
  /** Why this server should not take traffic yet (`/readyz` answers 503 with it), or undefined once it should. */
  notReadyBecause?: () => string | undefined;
  /** Web origins whose pages may call the API (SVC_CORS_ORIGINS); unset: no CORS at all. */
  corsOrigins?: readonly string[];
  /** Whether a `Host` header is answered (allowed-hosts.ts); unset: any is. */
  acceptsHost?: (host: string | undefined) => boolean;
  /** Told of every long-running answer (a watch, the console's events) as it starts (long-running.ts). */
  longRunning?: LongRunningRequests;
  /** A graceful stop's drain (drain.ts): while it runs, new requests get 503 and `/readyz` answers 503. */
  drain?: Drain;
}

/**
 * The HTTP kernel: the request target parsed once (targets.ts), the Host checked (allowed-hosts.ts), the headers every
 * answer carries (security-headers.ts), body parsing with prototype-poisoning protection and a nesting limit, the
 * rest of a refused body read so its answer arrives (unread-body.ts), problem+json for every error (the framework's
 * and the HTTP parser's included), and one catch-all per API prefix that dispatches into the runtime router.
 */
export function createApp(options: AppOptions) {
  const { logger, router, trustProxy = false, accessLog = true } = options;
  const app = Fastify({
    loggerInstance: logger,
    // Fastify's own two lines per request are off: the access log writes one, cheaper (access-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLoggerFactory,
    genReqId: requestIdOf,
    bodyLimit: BODY_LIMIT,
    rewriteUrl: rewriteToTarget,
    // Typed through a string: Fastify's overloads pick its HTTP/2 signature for the whole union.
    trustProxy: trustProxy as string,
    // Query strings: repeated keys become arrays (selectors and sort are repeatable).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000, querystringParser },
    // The HTTP parser's refusals (oversized headers, unknown methods, malformed requests) answer problem+json too.
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, request, reply) => {
      applySecurityHeaders(request, reply);
      return sendProblem(reply, request, error);
    },
  });
  app.decorateRequest('target', { getter: targetOf });
  // First, so that its own hooks run first: an upgrade refused by a hook below still has its socket closed.
  app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  if (options.corsOrigins?.length) app.register(cors, corsOptions(options.corsOrigins));
  // The kernel's own checks, one hook per stage: every request passes each hook, and each costs a step of Fastify's.
  const { acceptsHost, drain: stopping } = options;
  app.addHook('onRequest', (request, reply, done) => {
    echoRequestId(request, reply);
    applySecurityHeaders(request, reply);
    done(
      refusedHost(acceptsHost, request) ?? unparsableTarget(request) ?? refusedWhileDraining(stopping, request, reply),
    );
  });
  // An answer sent before the body was all read still reaches the client (unread-body.ts).
  const drain = unreadBodyDrain(undefined, () => stopping?.draining === true);
  app.addHook('onSend', drain.hook);
  app.addHook('preClose', (done) => {
    drain.close();
    done();
  });
  if (accessLog) app.addHook('onResponse', accessLogHook(logger));

  // Only JSON bodies: a text/plain body on a write is a 415, not a string handed to a handler.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser(
    [
      'application/json',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ],
    { parseAs: 'string' },
    jsonBodyParser(app),
  );
  // Server-side apply (docs/api.md "Server-side apply"): YAML or JSON, read only where it applies.
  app.addContentTypeParser(APPLY_TYPE, { parseAs: 'string' }, applyBodyParser(app));
  // kubectl's typed clients (auth can-i, auth whoami) send protobuf: read only by the routes that declare a message.
  app.addContentTypeParser(
    PROTOBUF_TYPE,
    { parseAs: 'buffer', bodyLimit: PROTOBUF_BODY_LIMIT },
    protobufBodyParser(router),
  );
  // Before a byte of a body is read (after the gate): apply bodies only where they apply, anonymous bodies limited.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const hasBody =
      request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;
    if (!hasBody) return done(null, payload);
    const refused = applyElsewhere(router, request) ?? protobufElsewhere(router, request);
    if (refused) return done(refused);
    const body = limitedAnonymousBody(request, payload);
    return body instanceof Error ? done(body) : done(null, body);
  });

  // After the gate (onRequest) and the body, before any handler: a dry run only where it is honoured.
  app.addHook('preHandler', (request, _reply, done) => done(unhonouredDryRun(router, request)));

  app.setErrorHandler((error, request, reply) => sendProblem(reply, request, error));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, request, notFound(`no route for ${request.method} ${request.target.path}`)),
  );

  // The server's version, as Kubernetes' /version (kubectl's version dispatcher reads it); public through the built-in
  // anonymous role. `minor` names the newest Kubernetes API level svc's wire format is tested against.
  app.get('/version', async (_request, reply) => reply.type('application/json').send(VERSION_INFO));

  // Liveness for load balancers and orchestrators (`/healthz` is the older name); public through the built-in anonymous
  // role. Readiness: a replica that has not caught up with the store's changes, or is stopping, answers 503, so it
  // gets no traffic.
  const ok = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type('application/json').send('{"status":"ok"}');
  app.get('/healthz', ok);
  app.get('/livez', ok);
  app.get('/readyz', async (request, reply) => {
    const reason = stopping?.draining ? 'shutting down' : options.notReadyBecause?.();
    if (reason === undefined) return ok(request, reply);
    return sendProblem(reply, request, serviceUnavailable(reason));
  });

  const { longRunning } = options;
  const dispatch = async (request: FastifyRequest, reply: FastifyReply) => {
    // HEAD is answered by the GET route; the framework sends its headers without the body.
    const found = router.find(request.method === 'HEAD' ? 'GET' : request.method, request.target.routePath);
    if (!found) throw notFound(`no route for ${request.method} ${request.target.path}`);
    await found.route.handler({ request, reply }, found.params);
    longRunning?.afterHandler(request, reply);
    return reply;
  };
  // A WebSocket upgrade (a watch) goes through the same hooks and the same router as plain HTTP; the route's handler
  // finds the socket in `websocket`. Routes declared in a child scope, so the websocket plugin sees them.
  const dispatchWebSocket = async (socket: WebSocket, request: FastifyRequest) => {
    longRunning?.afterUpgrade(request);
    const found = router.find('GET', request.target.routePath);
    if (!found?.route.websocket) return socket.close(1008, 'this path does not accept WebSocket connections');
    await found.route.handler(
      { request, reply: undefined as unknown as FastifyReply, websocket: socket },
      found.params,
    );
  };
  // multipart/form-data (plugin archives): parsed only by a handler that asks for it, with that handler's limits.
  app.register(multipart, { throwFileSizeLimit: true, limits: { fileSize: 0, files: 0 } });
  app.register(async (scope) => {
    const others = scope.supportedMethods.filter((method) => method !== 'GET' && method !== 'HEAD');
    // /openapi, /docs, /console, /uc and /plugins are core routes of the runtime router too (the OpenAPI documents,
    // the API reference, the web console, its personal center and the plugin UIs' files).
    const prefixes = ['/api', '/api/*', '/apis', '/apis/*', '/openapi/*', '/openapi.json', '/docs', '/docs/*'];
    for (const url of [...prefixes, '/console', '/console/*', '/uc', '/uc/*', '/plugins/*']) {
      // JSON answers over 1 KiB compressed for clients that ask (compression.ts); streams write to the socket.
      scope.route({ method: 'GET', url, handler: dispatch, wsHandler: dispatchWebSocket, onSend: compressAnswer });
      scope.route({ method: others, url, handler: dispatch, config: { runtimeRouter: true }, onSend: compressAnswer });
    }
  });
  return app;
}

/** The HTTP kernel's Fastify instance, as features hook into it. */
export type HttpApp = ReturnType<typeof createApp>;

/** A request arriving while the server drains: 503, to be retried (on another replica) after a second. */
function refusedWhileDraining(drain: Drain | undefined, request: FastifyRequest, reply: FastifyReply) {
  if (!drain?.refuses(request.target.path)) return undefined;
  reply.header('retry-after', '1');
  return serviceUnavailable('this server is shutting down; retry on another replica');
}
