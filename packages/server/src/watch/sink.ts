/**
 * Where a watcher's events go: a WebSocket (here) or a streamed HTTP response (api/ndjson-stream.ts). A sink never
 * blocks the sender; it reports how many bytes wait to be sent, so the watcher can end a consumer that does not keep up
 * instead of holding its backlog.
 */
import { once } from 'node:events';
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

/**
 * `network` is the connection the WebSocket runs on: the upgraded request's socket, which ws writes its frames to (it
 * is the socket handed to ws's `handleUpgrade`). Without it, frames go through `socket.send` and cork does nothing.
 */
export function webSocketSink(socket: WebSocket, network?: Socket): WatchSink {
  const sendOptions = { binary: false, compress: false };
  return {
    send: (chunk) => {
      if (socket.readyState === OPEN) socket.send(chunk, sendOptions);
    },
    // Frames are written straight to the connection, in order with what ws itself writes (no compression, so ws
    // queues nothing): one shared Buffer per event, no framing per client.
    sendFrame: network
      ? (frame) => {
          if (socket.readyState === OPEN) network.write(frame);
        }
      : undefined,
    cork: () => network?.cork(),
    uncork: () => network?.uncork(),
    buffered: () => socket.bufferedAmount,
    async drained(bytes) {
      // ws has no drain event of its own: wait on the connection's.
      while (socket.readyState === OPEN && socket.bufferedAmount >= bytes) {
        if (network) await Promise.race([once(network, 'drain'), once(socket, 'close')]);
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
