import type { WebSocket } from '@fastify/websocket';
import { forbidden } from '@svc/plugin-api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Decision } from '../authz/authorizer.js';
import { ANONYMOUS, type Principal } from '../authz/principal.js';
import type { RequestInfo } from '../authz/request-info.js';
import type { Actor } from '../registry/admission.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authorization hook before any handler runs. */
    principal?: Principal;
    /**
     * The request's classification (authz/request-info.ts), set by the authorization hook once it has one: request
     * metrics read it. Unset on a request answered before the gate classified it (a refused Host, a failed sign-in).
     */
    requestInfo?: RequestInfo;
    /**
     * Set by the authorization hook on PATCH requests: whether the caller may also `verb` the same target. A
     * server-side apply that creates the object needs `create` besides `patch`, as in Kubernetes.
     */
    authorizeAlso?: (verb: string) => Decision;
    /** The gate's decision on the request, set by the authorization hook (the audit log names it). */
    decision?: Decision;
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

/** Throws the 403 a caller gets when the gate does not also allow `verb` on this request's target. */
export function requireAlso(request: FastifyRequest, verb: string): void {
  const decision = request.authorizeAlso?.(verb) ?? { allowed: false, reason: 'no authorization gate decided it' };
  if (decision.allowed) return;
  const who = callerOf(request).username;
  throw forbidden(`${who ? `user "${who}"` : 'an anonymous caller'} may not ${verb} this: ${decision.reason}`);
}
