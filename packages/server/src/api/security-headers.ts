/**
 * Headers every answer carries (docs/api.md "Security headers and TLS"): `X-Content-Type-Options: nosniff` always;
 * `Cache-Control: no-store` unless the route says otherwise (answers depend on who asks, and carry their data; the
 * built files of the console and of plugin UIs set their own caching); `Strict-Transport-Security` on the HTTPS
 * listener. Set before anything else runs, so errors and streamed answers carry them too.
 */
import type { TLSSocket } from 'node:tls';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A year, without subdomains: svc answers for its own host only. */
export const HSTS = 'max-age=31536000';

/** Names a browser resolves to this machine: HSTS there would hold every local port (svc's HTTP one too) to HTTPS. */
const LOCALHOST = /^(.*\.)?localhost\.?(:\d+)?$/i;

/** The headers themselves, also for an error the framework answers before any hook ran. */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  if (isSecure(request) && !LOCALHOST.test(request.headers.host ?? '')) reply.header('strict-transport-security', HSTS);
}

/** Whether the request came over TLS to svc itself (the HTTPS listener), whatever a proxy may say. */
export function isSecure(request: FastifyRequest): boolean {
  return (request.raw.socket as TLSSocket | undefined)?.encrypted === true;
}
