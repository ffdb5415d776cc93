/**
 * How large a request body may be (docs/api.md "Errors"): 4 MiB, and 64 KiB for a caller the gate left anonymous.
 * Signing in, the first-run setup and a plugin's public forms need a few KiB; parsing 4 MiB of JSON (a wide object
 * sent to `POST /login`) held the event loop for 200 ms, for anyone at all (`npm run bench:stall`).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { payloadTooLarge } from '@svc/plugin-api';
import type { FastifyRequest, RequestPayload } from 'fastify';
import { callerOf } from './http-context.js';

export const BODY_LIMIT = 4 * 1024 * 1024;
export const ANONYMOUS_BODY_LIMIT = 64 * 1024;

const TOO_LARGE = `a request body without credentials is limited to ${ANONYMOUS_BODY_LIMIT / 1024} KiB; sign in to send more`;

/**
 * An anonymous caller's body, limited (app.ts's body checks, after the gate): a 413 when announced over the limit,
 * else the body, counted as it is read when its length is not announced (chunked).
 */
export function limitedAnonymousBody(request: FastifyRequest, payload: RequestPayload): RequestPayload | Error {
  if (callerOf(request).username !== undefined) return payload;
  if (Number(request.headers['content-length']) > ANONYMOUS_BODY_LIMIT) return payloadTooLarge(TOO_LARGE);
  return request.headers['transfer-encoding'] === undefined ? payload : payload.pipe(new Capped());
}

class Capped extends Transform {
  private left = ANONYMOUS_BODY_LIMIT;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.left -= chunk.length;
    callback(this.left < 0 ? payloadTooLarge(TOO_LARGE) : null, chunk);
  }
}
