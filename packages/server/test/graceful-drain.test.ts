/**
 * A graceful stop as a user's orchestrator makes it: `svc serve` in a child process gets SIGTERM while a slow request
 * is in flight, a watch is open and keep-alive connections sit idle on both listeners (docs/api.md "Stopping").
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_ADMIN } from './harness.js';
import { type ServeProcess, signInOver, spawnServe } from './serve-process.js';
import { watchWebSocket } from './watch-client.js';

const POSTS = '/apis/content.svc.run/v1alpha1/posts';
const POST = { apiVersion: 'content.svc.run/v1alpha1', kind: 'Post' };

/** A connection that made one keep-alive request and now sits idle; `closed` settles when the server closes it. */
async function idleConnection(socket: net.Socket, host: string): Promise<{ closed: Promise<void> }> {
  const closed = once(socket, 'close').then(() => undefined);
  socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
  let text = '';
  while (!/\r\n\r\n[\s\S]*"status":"ok"/.test(text)) text += (await once(socket, 'data'))[0];
  expect(text).toMatch(/^HTTP\/1\.1 200 /);
  expect(text.toLowerCase()).not.toContain('connection: close');
  return { closed };
}

/** Sends `body` in two halves; the second when `rest` is called. Resolves the answer's status, headers and body. */
function slowCreate(url: string, headers: Record<string, string>, body: string) {
  const request = http.request(`${url}${POSTS}`, {
    method: 'POST',
    agent: new http.Agent({ keepAlive: true }),
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  });
  const half = Math.floor(body.length / 2);
  request.write(body.slice(0, half));
  const answer = new Promise<{ status: number; connection?: string; body: string }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, connection: response.headers.connection, body: text }),
      );
    });
  });
  return { rest: () => request.end(body.slice(half)), answer };
}

/** A GET on a new connection (a pooled idle one may be closed by the drain as it is reused). */
function freshGet(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    http
      .get(url, { agent: new http.Agent({ keepAlive: true }), headers }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      })
      .on('error', reject);
  });
}

describe('a graceful stop', () => {
  let served: ServeProcess | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await served?.kill();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('fails readiness at once, finishes the request in flight, ends watches, closes idle connections, exits', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'svc-drain-'));
    served = await spawnServe({
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_PASSWORD: TEST_ADMIN.password,
      SVC_HTTPS_PORT: '0',
      SVC_SHUTDOWN_TIMEOUT: '30s',
    });
    const { url } = served;
    while (!/svc listening on https:\/\/\S+\s/.test(served.stdout())) await new Promise((r) => setTimeout(r, 20));
    const httpsUrl = new URL(/svc listening on (https:\/\/\S+)/.exec(served.stdout())![1]!);
    const headers = await signInOver(url);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    // A watch that asked for bookmarks, read line by line.
    const watch = await fetch(`${url}${POSTS}?watch=true&allowWatchBookmarks=true`, { headers });
    expect(watch.status).toBe(200);
    const lines: string[] = [];
    const watchEnded = (async (): Promise<string | undefined> => {
      const decoder = new TextDecoder();
      let rest = '';
      for await (const chunk of watch.body!) {
        rest += decoder.decode(chunk, { stream: true });
        const parts = rest.split('\n');
        rest = parts.pop()!;
        lines.push(...parts.filter((line) => line !== ''));
      }
      return undefined;
    })().catch((error: Error) => `the watch failed: ${error.message}`);
    // The same over a WebSocket.
    const socketWatch = watchWebSocket(url, `${POSTS}?allowWatchBookmarks=true`, { headers });
    const first = await fetch(`${url}${POSTS}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ ...POST, metadata: { name: 'before-stop' }, spec: { title: 'Before the stop' } }),
    });
    expect(first.status).toBe(201);
    const firstRevision = Number(
      ((await first.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
    );
    while (!lines.some((line) => line.includes('before-stop'))) await new Promise((r) => setTimeout(r, 20));
    await socketWatch.until(
      (events) => events.some((e) => e.object.metadata?.name === 'before-stop'),
      'over WebSocket',
    );

    // Idle keep-alive connections on both listeners.
    const plain = net.connect(Number(new URL(url).port), '127.0.0.1');
    await once(plain, 'connect');
    const idlePlain = await idleConnection(plain, new URL(url).host);
    const secure = tls.connect({ port: Number(httpsUrl.port), host: '127.0.0.1', rejectUnauthorized: false });
    await once(secure, 'secureConnect');
    const idleSecure = await idleConnection(secure, httpsUrl.host);

    // A create whose body is half sent when the stop begins.
    const slow = slowCreate(
      url,
      headers,
      JSON.stringify({ ...POST, metadata: { name: 'in-flight' }, spec: { title: 'Slow' } }),
    );
    await new Promise((r) => setTimeout(r, 100));

    const exited = once(served.child, 'exit') as Promise<[number | null, string | null]>;
    served.child.kill('SIGTERM');

    // Readiness fails, and a new request is turned away to another replica, while the slow request is in flight.
    let readyz = await freshGet(`${url}/readyz`);
    while (readyz.status === 200) readyz = await freshGet(`${url}/readyz`);
    expect(readyz.status).toBe(503);
    expect((JSON.parse(readyz.body) as { detail: string }).detail).toBe('shutting down');
    const refused = await freshGet(`${url}${POSTS}`, headers);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.connection).toBe('close');

    // The watch got a last bookmark at the latest revision, then its end; the idle connections were closed.
    expect(await watchEnded).toBe(undefined);
    const last = JSON.parse(lines.at(-1)!) as { type: string; object: { metadata: { resourceVersion: string } } };
    expect(last.type).toBe('BOOKMARK');
    expect(Number(last.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(firstRevision);
    await socketWatch.ended;
    const lastOverSocket = socketWatch.events.at(-1)!;
    expect(lastOverSocket.type).toBe('BOOKMARK');
    expect(Number(lastOverSocket.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(firstRevision);
    await idlePlain.closed;
    await idleSecure.closed;
    expect(served.child.exitCode).toBe(null);

    // The request in flight finishes, on a connection that then closes; the process then exits cleanly.
    slow.rest();
    const answer = await slow.answer;
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ metadata: { name: 'in-flight' }, spec: { title: 'Slow' } });
    expect(answer.connection).toBe('close');
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(served.output()).not.toContain('longer than the shutdown timeout');
  }, 60_000);
});
