import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { callerOf } from './http-context.js';

/** How an unauthenticated caller shows in the access log (a name no user can have: it is not a DNS label). */
export const ANONYMOUS_USER = 'system:anonymous';

/**
 * An `onResponse` hook writing one info line per answered request, through the server's logger itself (no child
 * logger per request), with flat fields of plain values, the cheapest for pino to write:
 * `{"reqId":"…","method":"GET","path":"/apis/…","status":200,"responseTime":0.42,"user":"alice"}` (ms).
 *
 * The path is the parsed target's, without the query string: selectors name field values (an e-mail, say), and a
 * query is where a careless client puts a token. No header is read, so no credential can reach the line.
 */
export function accessLogHook(logger: Logger) {
  return function logRequest(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    // Below info (SVC_LOG_LEVEL=warn) the line is not even built.
    if (logger.isLevelEnabled('info')) {
      logger.info(
        {
          reqId: request.id,
          method: request.method,
          path: request.target.path,
          status: reply.statusCode,
          responseTime: Math.round(reply.elapsedTime * 100) / 100,
          user: callerOf(request).username ?? ANONYMOUS_USER,
        },
        'request completed',
      );
    }
    done();
  };
}
