import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { payloadTooLarge } from '@svc/plugin-api';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unreadBodyDrain } from './unread-body.js';

const KiB = 1024;

/**
 * The bound on reading a body answered early: a real Fastify on a real socket, with a small bound, and a route that
 * answers 413 before reading anything (as a body over the limit by its Content-Length is).
 */
describe('reading the rest of a body answered early', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = Fastify();
    const drain = unreadBodyDrain({ bytes: 256 * KiB, ms: 300 });
    app.addHook('onSend', drain.hook);
    app.addContentTypeParser('application/octet-stream', (_request, _payload, done) =>
      done(payloadTooLarge('refused before reading')),
    );
    app.post('/', async () => 'never');
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  /** Sends the head and `sent` bytes of a body announced as `announced` bytes; answers what came back and how it ended. */
  const send = (announced: number, sent: number, pauseMs = 0) =>
    new Promise<{ answer: string; ended: 'closed' | 'open' }>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => resolve({ answer, ended: 'closed' }));
      socket.on('connect', async () => {
        socket.write(
          `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\nContent-Length: ${announced}\r\n\r\n`,
        );
        for (let at = 0; at < sent && !socket.destroyed; at += 16 * KiB) {
          await new Promise((r) => socket.write(Buffer.alloc(Math.min(16 * KiB, sent - at)), r));
        }
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        if (!socket.destroyed) {
          // The whole body is in: the connection stays usable, and answers a second request.
          socket.write(
            'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\nContent-Length: 0\r\n\r\n',
          );
          setTimeout(() => {
            socket.destroy();
            resolve({ answer, ended: 'open' });
          }, 200);
        }
      });
    });

  it('reads a rest within the bound, and the connection goes on', async () => {
    const { answer, ended } = await send(200 * KiB, 200 * KiB);
    expect(ended).toBe('open');
    expect(answer.match(/HTTP\/1\.1 413/g)).toHaveLength(2);
    expect(answer).not.toMatch(/connection: close/i);
  });

  it('closes once more than the bound has come', async () => {
    const { answer, ended } = await send(4096 * KiB, 4096 * KiB);
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(ended).toBe('closed');
  });

  it('closes a body that stops coming, once the time is up', async () => {
    const { ended } = await send(200 * KiB, 100 * KiB, 1000);
    expect(ended).toBe('closed');
  });
});
