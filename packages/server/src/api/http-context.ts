import type { FastifyReply, FastifyRequest } from 'fastify';

/** What a dynamic route handler receives: the request and reply of the catch-all route that dispatched to it. */
export interface HttpContext {
  request: FastifyRequest;
  reply: FastifyReply;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
