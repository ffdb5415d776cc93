/**
 * The two transports of a watch, as the generated list route calls them: a WebSocket (already upgraded; errors are
 * ERROR events) and `?watch=true`, an NDJSON stream (api/ndjson-stream.ts; errors found before streaming are ordinary
 * problem+json responses). Each watch carries the principal the gate authorized, so it can end when that caller loses
 * access.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from '@fastify/websocket';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServedModel } from '../registry/model-registry.js';
import { streamOwner } from '../util/per-key-limit.js';
import { type WatchSink, webSocketSink } from '../watch/sink.js';
import type { PreparedWatch, WatchService } from '../watch/watch-service.js';
import { callerOf } from './http-context.js';
import { openNdjsonStream } from './ndjson-stream.js';

export function watchOverWebSocket(
  watches: WatchService,
  served: () => ServedModel,
  request: FastifyRequest,
  socket: WebSocket,
  wrap: (sink: WatchSink, served: ServedModel) => WatchSink = (sink) => sink,
): void {
  // The upgraded request's socket is the one ws was handed (Node's 'upgrade' event gives both): frames go straight to it.
  let sink = webSocketSink(socket, request.raw.socket as Socket | undefined);
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
  let sink: WatchSink;
  try {
    sink = wrap(openNdjsonStream(reply), served);
  } catch (error) {
    release();
    throw error;
  }
  watches.start(prepared, sink, caller, release);
  return reply;
}
