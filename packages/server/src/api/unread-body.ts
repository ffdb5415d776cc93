/**
 * An answer sent before its request's body was read (a 413 over the limit, a 415, a 401 from the gate, a handler's
 * refusal) must still reach a client that is sending the body: closing the connection while it sends resets it, and
 * such a client never reads the answer (issue 28: two of five 12 MiB uploads got a reset, not the 413). So svc reads
 * the rest of the body and drops it, up to a bound in bytes and time, keeping nothing; past the bound it closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The most of an unread body svc reads (and drops) after answering: a few large uploads' worth. */
export const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
/** How long svc waits for the rest of such a body. */
export const DRAIN_LIMIT_MS = 30_000;

/**
 * The `onSend` hook that reads the rest of a body while the answer goes out, and `close`, which drops every body
 * still being read (the server is stopping: nobody waits for them).
 */
export function unreadBodyDrain(
  limits = { bytes: DRAIN_LIMIT_BYTES, ms: DRAIN_LIMIT_MS },
  /** Whether the server is stopping: its answers keep `Connection: close` (drain.ts). */
  stopping: () => boolean = () => false,
) {
  const draining = new Set<IncomingMessage>();
  const drain = (raw: IncomingMessage, closeAfter: ServerResponse | undefined) => {
    let left = limits.bytes;
    draining.add(raw);
    const timer = setTimeout(() => raw.destroy(), limits.ms);
    timer.unref();
    const stop = () => {
      clearTimeout(timer);
      draining.delete(raw);
    };
    raw.once('end', stop);
    // The answer sent and the body all read: nothing left unread to turn the close into a reset.
    if (closeAfter) {
      let pending = 2;
      const close = () => --pending === 0 && raw.socket?.end();
      raw.once('end', close);
      closeAfter.once('finish', close);
    }
    raw.once('close', stop);
    // A body parser that gave up (a multipart upload over its limit) may still be attached: the bytes go nowhere now.
    raw.unpipe();
    raw.on('data', (chunk: Buffer) => {
      left -= chunk.length;
      if (left < 0) raw.destroy();
    });
    raw.resume();
  };
  return {
    hook(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (e: Error | null, p?: unknown) => void) {
      const raw = request.raw;
      // An upgrade's socket is no body, and Fastify's inject gives a body that was all there.
      if (!raw.complete && !raw.readableEnded && !raw.destroyed && raw.headers.upgrade === undefined && raw.socket) {
        // Fastify asks to close after a body it refused; read to its end instead, and the connection stays usable.
        if (!stopping()) reply.removeHeader('connection');
        // A client that asked to close (`Connection: close`, HTTP/1.0) would have Node.js close the socket as the
        // answer ends, with the body still coming: a reset, which loses the answer. Keep it open until the body is
        // read, then close it.
        const closeAfter = !stopping() && askedToClose(raw);
        if (closeAfter) reply.raw.shouldKeepAlive = true;
        drain(raw, closeAfter ? reply.raw : undefined);
      }
      done(null, payload);
    },
    close() {
      for (const raw of draining) raw.destroy();
    },
  };
}

/** Whether the client asked that the connection end after this request: `Connection: close`, or HTTP/1.0 without keep-alive. */
function askedToClose(raw: IncomingMessage): boolean {
  const tokens = (raw.headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .map((t) => t.trim());
  return tokens.includes('close') || (raw.httpVersion === '1.0' && !tokens.includes('keep-alive'));
}
