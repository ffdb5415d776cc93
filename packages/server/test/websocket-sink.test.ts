/**
 * A watch writes each event's frame, built once, straight to the upgraded connection (watch/sink.ts), in between what
 * ws itself sends. That holds only while the connection ws writes to is the upgraded request's socket, as ws's
 * `handleUpgrade` documents and @fastify/websocket passes it. If a release of either library put something between
 * them (a wrapper, a queue), this test fails: frames would arrive out of order, or not as frames at all.
 */
import websocket from '@fastify/websocket';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { webSocketFrame } from '../src/watch/events.js';
import { webSocketSink } from '../src/watch/sink.js';

const app = Fastify();
let url: string;

beforeAll(async () => {
  await app.register(websocket);
  app.get('/frames', { websocket: true }, (socket, request) => {
    const sink = webSocketSink(socket, request.raw.socket);
    expect(sink.sendFrame).toBeDefined();
    sink.send(Buffer.from('one'));
    sink.sendFrame!(webSocketFrame(Buffer.from('two')));
    sink.cork();
    sink.send(Buffer.from('three'));
    sink.sendFrame!(webSocketFrame(Buffer.from('four')));
    sink.uncork();
    sink.end();
  });
  url = (await app.listen({ host: '127.0.0.1', port: 0 })).replace(/^http/, 'ws');
});
afterAll(() => app.close());

it('delivers frames written to the upgraded socket in order with the messages ws sends', async () => {
  const client = new WebSocket(`${url}/frames`);
  const received: string[] = [];
  client.on('message', (data) => received.push(String(data)));
  const code = await new Promise<number>((resolve, reject) => {
    client.on('close', resolve);
    client.on('error', reject);
  });
  expect(received).toEqual(['one', 'two', 'three', 'four']);
  expect(code).toBe(1000);
});
