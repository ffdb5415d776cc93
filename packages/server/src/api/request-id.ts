import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A request id a client may choose: short, and only characters that are safe in a header, a log line and a URL. */
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Fastify's `genReqId`: the client's `X-Request-Id` when it is a safe token (so a proxy's or a client's id follows the
 * request into svc's logs), otherwise a new UUID. Anything else a client sends there (long, or with characters that
 * could forge a log line or a header) is replaced, never echoed.
 */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
}

/** Every answer carries its request id, the one its problem body and its log lines name (app.ts's first checks). */
export function echoRequestId(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
}
