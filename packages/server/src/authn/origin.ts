import type { FastifyRequest } from 'fastify';

/** Characters a Host header never holds; with one, it could make the URL below mean another host. */
const NOT_A_HOST = /[\s/?#@\\]/;

/**
 * True when `origin` (an `Origin` header) is exactly the origin the request was sent to: the scheme the server serves
 * it on, and the host and port of its `Host` header (a default port may be left out on either side). Anything that is
 * not a plain serialized origin (`null`, a path, credentials, odd casing) is refused: browsers send only that form.
 */
export function isOwnOrigin(origin: string, host: string | undefined, scheme: string): boolean {
  if (!host || NOT_A_HOST.test(host) || (scheme !== 'http' && scheme !== 'https')) return false;
  try {
    const claimed = new URL(origin);
    return claimed.origin === origin && claimed.origin === new URL(`${scheme}://${host}`).origin;
  } catch {
    return false;
  }
}

/**
 * True when the request names no other origin than its own (see isOwnOrigin). No `Origin` header counts as the same:
 * browsers send one on every cross-site request this guards (form posts, WebSocket handshakes); other clients do not.
 */
export function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  return origin === undefined || isOwnOrigin(origin, request.headers.host, request.protocol);
}
