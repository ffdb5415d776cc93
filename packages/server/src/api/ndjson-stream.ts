/**
 * A stream of newline-delimited JSON on a hijacked reply, the one form both streamed answers take: a `?watch=true`
 * watch (docs/api.md "Watch") and the console's events. It is a 200 `application/json` response carrying the headers
 * hooks set (the request id), one JSON object per line. Whatever is refused before it opens is an ordinary
 * problem+json answer (throw before calling `openNdjsonStream`); once open, a failure is a final ERROR event carrying
 * a Kubernetes Status, then the end.
 *
 * It never blocks the sender: it reports how many bytes wait to be sent, so a watcher can end a consumer that does
 * not keep up instead of holding its backlog.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { ApiError } from '@svc/plugin-api';
import type { FastifyReply } from 'fastify';
import { errorEvent, statusOfError } from '../watch/events.js';
import type { WatchSink } from '../watch/sink.js';

export interface NdjsonStream extends WatchSink {
  /** Sends `value` as one line. */
  sendJson(value: unknown): void;
  /** Sends a final ERROR event carrying `error` as a Status, then ends. */
  fail(error: ApiError): void;
}

/** Takes the reply over from Fastify (it sends nothing more for this request) and starts the stream. */
export function openNdjsonStream(reply: FastifyReply): NdjsonStream {
  const headers = headersSetByHooks(reply);
  reply.hijack();
  return ndjsonStream(reply.raw, headers);
}

/** The stream on a raw response, with `headers` besides its own. */
export function ndjsonStream(raw: ServerResponse, headers: Record<string, string> = {}): NdjsonStream {
  raw.writeHead(200, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  raw.flushHeaders();
  let closed = false;
  raw.once('close', () => (closed = true));
  const send = (chunk: Buffer | string) => {
    if (!closed && !raw.writableEnded) raw.write(chunk);
  };
  const end = () => {
    if (!raw.writableEnded) raw.end();
  };
  return {
    send,
    sendJson: (value) => send(`${JSON.stringify(value)}\n`),
    fail: (error) => {
      send(errorEvent(statusOfError(error)));
      end();
    },
    cork: () => raw.cork(),
    uncork: () => raw.uncork(),
    buffered: () => raw.writableLength,
    async drained(bytes) {
      while (!closed && !raw.writableEnded && raw.writableLength >= bytes) {
        await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
      }
    },
    end,
    destroy: () => raw.destroy(),
    get closed() {
      return closed || raw.writableEnded;
    },
    onClose: (listener) => void raw.once('close', listener),
  };
}

/** Headers hooks set on the reply before the handler ran: hijacking skips Fastify's sending of them. */
function headersSetByHooks(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (typeof value === 'string') headers[name] = value;
    else if (typeof value === 'number') headers[name] = String(value);
  }
  return headers;
}
