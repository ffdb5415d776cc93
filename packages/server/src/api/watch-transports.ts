/**
 * The two transports of a watch, as the generated list route calls them: a WebSocket (already upgraded; errors are
 * ERROR events) and `?watch=true`, a streamed `application/json` response of newline-delimited events (errors found
 * before streaming are ordinary problem+json responses). Each watch carries the principal the gate authorized, so it
 * can end when that caller loses access.
 */
import type { WebSocket } from '@fastify/websocket';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServedModel } from '../registry/model-registry.js';
import { streamOwner } from '../util/per-key-limit.js';
import { httpStreamSink, type WatchSink, webSocketSink } from '../watch/sink.js';
import type { PreparedWatch, WatchService } from '../watch/watch-service.js';
import { callerOf } from './http-context.js';

export function watchOverWebSocket(
  watches: WatchService,
  served: () => ServedModel,
  request: FastifyRequest,
  socket: WebSocket,
  wrap: (sink: WatchSink, served: ServedModel) => WatchSink = (sink) => sink,
): void {
  let sink = webSocketSink(socket);
  const caller = callerOf(request);
  let prepared: PreparedWatch;
  let release: (() => void) | undefined;
  try {
    prepared = watches.prepare(served(), request.target.query);
    release = watches.reserve(streamOwner(caller.username, request.ip));
    sink = wrap(sink, prepared.served);
  } catch (error) {
    release?.();
    // Already upgraded: the refusal (a bad parameter, too many open watches) is an ERROR event, then the close.
    watches.refuse(sink, error);
    return;
  }
  watches.start(prepared, sink, caller, release);
}

export function watchOverHttp(
  watches: WatchService,
  served: ServedModel,
  request: FastifyRequest,
  reply: FastifyReply,
  wrap: (sink: WatchSink, served: ServedModel) => WatchSink = (sink) => sink,
): FastifyReply {
  const prepared = watches.prepare(served, request.target.query);
  const caller = callerOf(request);
  // Refused (429 problem+json) before anything is streamed when the caller holds too many streams.
  const release = watches.reserve(streamOwner(caller.username, request.ip));
  // The stream is written directly: Fastify sends nothing more for this request.
  reply.hijack();
  let sink: WatchSink;
  try {
    sink = wrap(httpStreamSink(reply.raw, headersSetByHooks(reply)), served);
  } catch (error) {
    release();
    throw error;
  }
  watches.start(prepared, sink, caller, release);
  return reply;
}

/** Headers hooks set on the reply before the handler ran (reply.hijack bypasses Fastify's sending of them). */
function headersSetByHooks(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (typeof value === 'string') headers[name] = value;
    else if (typeof value === 'number') headers[name] = String(value);
  }
  return headers;
}
