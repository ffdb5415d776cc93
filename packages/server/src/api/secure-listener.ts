import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Drain } from './drain.js';
import { answerClientError } from './problem.js';

export interface SecureListener {
  /** `https://HOST:PORT` as clients reach it. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves the same app over HTTPS beside its HTTP listener (kubectl sends a token only over TLS). Requests go into
 * Fastify's own handler (`app.routing`, the one its HTTP server uses, with the target rewrite and every hook), and
 * WebSocket upgrades are handed to the HTTP server's upgrade listener, so a request is treated the same on either
 * port; `request.protocol` is `https` here because the socket is encrypted.
 */
export async function listenSecurely(
  app: Pick<FastifyInstance, 'routing' | 'server'>,
  options: { host: string; port: number; key: string; cert: string; drain?: Drain },
): Promise<SecureListener> {
  const server = https.createServer({ key: options.key, cert: options.cert }, app.routing);
  // The same limits as the HTTP server Fastify made.
  server.keepAliveTimeout = app.server.keepAliveTimeout;
  server.requestTimeout = app.server.requestTimeout;
  server.on('clientError', answerClientError);
  // A stop drains this listener as the HTTP one: in-flight requests finish, idle keep-alive connections close.
  options.drain?.follow(server);
  server.on('upgrade', (request, socket, head) => app.server.emit('upgrade', request, socket, head));
  // Every socket, upgraded ones included (closeAllConnections forgets a socket once a WebSocket takes it over), so
  // closing never waits on a client that keeps its connection open.
  const sockets = new Set<Duplex>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen({ host: options.host, port: options.port });
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))]);
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `https://${host}:${port}`,
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
