import type { FastifyReply, FastifyRequest } from 'fastify';

/** Hears a long-running answer as it starts: the request, and the status its client got (200, or 101 for a WebSocket). */
export type LongRunningListener = (request: FastifyRequest, status: number) => void;

/**
 * Long-running answers (a watch, the console's event stream) as the kernel's dispatch sees them start. Request
 * metrics count them then, as Kubernetes counts its watches, rather than when the stream ends hours later (Fastify's
 * `onResponse`, which a WebSocket never reaches).
 */
export class LongRunningRequests {
  private readonly listeners: LongRunningListener[] = [];

  onStart(listener: LongRunningListener): void {
    this.listeners.push(listener);
  }

  /** Called by the dispatch once a handler has returned: tells the listeners when it left a stream open. */
  afterHandler(request: FastifyRequest, reply: FastifyReply): void {
    if (this.listeners.length === 0) return;
    // `sent` is true for a hijacked reply or a finished one; hijacked and not finished is a stream under way.
    if (reply.sent && !reply.raw.writableEnded) this.started(request, reply.raw.statusCode);
  }

  /** A WebSocket upgraded (its hooks passed): long-running from the first frame, whatever it then says. */
  afterUpgrade(request: FastifyRequest): void {
    this.started(request, 101);
  }

  private started(request: FastifyRequest, status: number): void {
    for (const listener of this.listeners) listener(request, status);
  }
}
