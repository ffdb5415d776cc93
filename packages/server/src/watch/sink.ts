/**
 * Where a watcher's events go: a WebSocket or a streamed HTTP response. A sink never blocks the sender; it reports how
 * many bytes wait to be sent, so the watcher can end a consumer that does not keep up instead of holding its backlog.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket } from '@fastify/websocket';

export interface WatchSink {
  send(chunk: Buffer): void;
  /** For WebSockets: sends a complete frame (LiveChange.frame), written as is. */
  sendFrame?(frame: Buffer): void;
  /** Holds sends in memory until `uncork`, so events delivered together leave in one write (one syscall). */
  cork(): void;
  uncork(): void;
  /** Bytes accepted by `send` and not yet handed to the network. */
  buffered(): number;
  /** Resolves once the backlog is below `bytes`, or the sink has closed. */
  drained(bytes: number): Promise<void>;
  /** Ends the stream after what is buffered. */
  end(): void;
  /** Drops the connection and its backlog at once. */
  destroy(): void;
  readonly closed: boolean;
  /** Called once, when the connection is gone (ended by either side). */
  onClose(listener: () => void): void;
}

const OPEN = 1;

export function webSocketSink(socket: WebSocket): WatchSink {
  const sendOptions = { binary: false, compress: false };
  const raw = () => (socket as unknown as { _socket?: Socket })._socket;
  return {
    send: (chunk) => {
      if (socket.readyState === OPEN) socket.send(chunk, sendOptions);
    },
    // Frames are written straight to the socket, in order with what ws itself writes (no compression, so ws queues
    // nothing): one shared Buffer per event, no framing per client.
    sendFrame: (frame) => {
      if (socket.readyState === OPEN) raw()?.write(frame);
    },
    cork: () => raw()?.cork(),
    uncork: () => raw()?.uncork(),
    buffered: () => socket.bufferedAmount,
    async drained(bytes) {
      // ws has no drain event of its own: wait on the underlying socket's.
      const net = raw();
      while (socket.readyState === OPEN && socket.bufferedAmount >= bytes) {
        if (net) await Promise.race([once(net, 'drain'), once(socket, 'close')]);
        else await new Promise((r) => setTimeout(r, 5));
      }
    },
    end: () => socket.close(1000),
    destroy: () => socket.terminate(),
    get closed() {
      return socket.readyState !== OPEN;
    },
    onClose: (listener) => void socket.once('close', listener),
  };
}

/** Newline-delimited JSON over a chunked `application/json` response (`?watch=true`, for curl). */
export function httpStreamSink(raw: ServerResponse, headers: Record<string, string> = {}): WatchSink {
  raw.writeHead(200, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  raw.flushHeaders();
  let closed = false;
  raw.once('close', () => (closed = true));
  return {
    send: (chunk) => {
      if (!closed && !raw.writableEnded) raw.write(chunk);
    },
    cork: () => raw.cork(),
    uncork: () => raw.uncork(),
    buffered: () => raw.writableLength,
    async drained(bytes) {
      while (!closed && !raw.writableEnded && raw.writableLength >= bytes) {
        await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
      }
    },
    end: () => {
      if (!raw.writableEnded) raw.end();
    },
    destroy: () => raw.destroy(),
    get closed() {
      return closed || raw.writableEnded;
    },
    onClose: (listener) => void raw.once('close', listener),
  };
}
