/**
 * JSON answers over 1 KiB go compressed to a client that asks (docs/api.md "Compression"): a page of 20 persons,
 * 7.1 KiB, is 1.2 KiB. At the fastest levels, since compressing costs about as much CPU again as the rest of such a
 * request and the fastest levels keep most of the saving (npm run bench:compression).
 *
 * The kernel does this itself in one `onSend` step of the API's routes, in place of @fastify/compress: that plugin
 * adds an `onRequest` and an `onSend` hook to every route and inspects every answer, which cost 6–9% of the CPU of a
 * small GET or create that it never compresses (bench/ab.js). Here an answer without `Accept-Encoding`, or under the
 * threshold, costs one header read and a length. The choice of encoding is @fastify/accept-negotiator's (q-values,
 * `*`, `identity`). Request bodies are never inflated: a few KiB of gzip can hold gigabytes.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import negotiate from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Answers shorter than this go as they are: compressing them saves less than its headers cost. */
export const COMPRESSION_THRESHOLD = 1024;
/** Preferred first: brotli at quality 1 is as fast as gzip at level 1 and smaller. */
const ENCODINGS: Array<'br' | 'gzip'> = ['br', 'gzip'];
const JSON_TYPE = /^application\/(?:[a-z.-]+\+)?json\b/;
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } };
const GZIP = { level: 1 };

/** The route-level `onSend` hook: the answer compressed when the client asks and it is JSON of 1 KiB or more. */
export function compressAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
): void {
  const accepted = request.headers['accept-encoding'];
  if (accepted === undefined || !(typeof payload === 'string' || Buffer.isBuffer(payload))) {
    return done(null, payload);
  }
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  if (bytes.length < COMPRESSION_THRESHOLD || !compressible(reply)) return done(null, payload);
  // Whatever the choice, the answer depends on the header: caches must keep one per encoding.
  reply.header('vary', varyWith(reply.getHeader('vary')));
  const encoding = negotiate(accepted, ENCODINGS);
  if (encoding === null) return done(null, bytes);
  const compressed = encoding === 'br' ? brotliCompressSync(bytes, BROTLI) : gzipSync(bytes, GZIP);
  reply.header('content-encoding', encoding);
  reply.header('content-length', compressed.length);
  done(null, compressed);
}

function compressible(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  const encoded = reply.getHeader('content-encoding');
  return (
    typeof type === 'string' &&
    JSON_TYPE.test(type) &&
    (encoded === undefined || encoded === 'identity') &&
    reply.statusCode !== 206
  );
}

/** `Vary` with Accept-Encoding added once. */
export function varyWith(vary: unknown): string {
  const current = Array.isArray(vary) ? vary.join(', ') : typeof vary === 'string' ? vary : '';
  if (current === '') return 'accept-encoding';
  if (current === '*' || /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(current)) return current;
  return `${current}, accept-encoding`;
}
