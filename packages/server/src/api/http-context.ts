import type { WebSocket } from '@fastify/websocket';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ANONYMOUS, type Principal } from '../authz/principal.js';
import type { Actor } from '../registry/admission.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authorization hook before any handler runs. */
    principal?: Principal;
  }
}

/** What a dynamic route handler receives: the request and reply of the catch-all route that dispatched to it. */
export interface HttpContext {
  request: FastifyRequest;
  /** For a WebSocket (already upgraded) there is no reply to send: use `websocket`. */
  reply: FastifyReply;
  /** Set when the request was a WebSocket upgrade; only routes that watch accept one. */
  websocket?: WebSocket;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Who is calling: the one way every handler, core or plugin, learns it. The gate authenticates each request before any
 * handler runs and keeps the principal on it; a request it has not seen counts as anonymous, which no rule trusts.
 */
export function callerOf(request: FastifyRequest): Principal {
  return request.principal ?? ANONYMOUS;
}

/** The caller as the object service's admission checks see it (an actor of kind `user`). */
export function actorOf({ request }: HttpContext): Actor {
  return { kind: 'user', principal: callerOf(request) };
}
