/**
 * CORS (docs/api.md "Settings", SVC_CORS_ORIGINS), off unless origins are named: a page of a listed origin may call
 * the API with a bearer token and read the answer; a preflight is answered before the gate (it carries no
 * credentials, and asks only whether the real request may be sent, which the gate then decides). Cookies are not
 * allowed across origins: a session is the console's, on svc's own origin, where its CSRF token guards it.
 */
import type { FastifyCorsOptions } from '@fastify/cors';

export function corsOptions(origins: readonly string[]): FastifyCorsOptions {
  const allowed = new Set(origins);
  return {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin.toLowerCase())),
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'accept', 'x-request-id'],
    exposedHeaders: ['location', 'x-request-id', 'retry-after', 'warning'],
    maxAge: 600,
    // Before anything else: the gate must not ask a preflight for credentials.
    hook: 'onRequest',
  };
}
