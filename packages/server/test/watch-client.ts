import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { eventually } from './eventually.js';

export const NOTES_PLUGINS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/plugins-watch');
export const NOTES = '/apis/notes.svc.run/v1/notes';

export interface WatchEvent {
  type: string;
  object: any;
}

/** A watch as a client sees it: the events received so far, and whether the server has ended it. */
export interface WatchClient {
  events: WatchEvent[];
  ended: Promise<void>;
  isEnded(): boolean;
  /** Waits (polling, bounded) until `predicate` holds for the events received. */
  until(predicate: (events: WatchEvent[]) => boolean, what?: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function note(name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>) {
  return { apiVersion: 'notes.svc.run/v1', kind: 'Note', metadata: { name, ...(labels ? { labels } : {}) }, spec };
}

function client(events: WatchEvent[], ended: Promise<void>, state: { ended: boolean }, close: () => void): WatchClient {
  return {
    events,
    ended,
    isEnded: () => state.ended,
    until: (predicate, what = 'events', timeoutMs) => eventually(() => predicate(events), what, timeoutMs),
    close,
  };
}

export interface WatchOptions {
  /** Credentials (the harness's `adminHeaders`). */
  headers?: Record<string, string>;
  onEvent?: (event: WatchEvent, socket: WebSocket) => void;
}

/** A watch over WebSocket (`ws://…` on the collection path). */
export function watchWebSocket(
  base: string,
  pathAndQuery: string,
  { headers, onEvent }: WatchOptions = {},
): WatchClient {
  const events: WatchEvent[] = [];
  const state = { ended: false };
  const socket = new WebSocket(`${base.replace(/^http/, 'ws')}${pathAndQuery}`, { headers });
  const ended = new Promise<void>((resolve) => {
    socket.on('close', () => {
      state.ended = true;
      resolve();
    });
    socket.on('error', () => undefined);
  });
  socket.on('message', (data) => {
    const event = JSON.parse(String(data)) as WatchEvent;
    events.push(event);
    onEvent?.(event, socket);
  });
  return client(events, ended, state, () => socket.close());
}

/** A watch over HTTP (`?watch=true`): newline-delimited events. `response` is exposed to pause reading. */
export function watchHttp(
  base: string,
  pathAndQuery: string,
  { headers }: WatchOptions = {},
): WatchClient & { response: Promise<http.IncomingMessage> } {
  const events: WatchEvent[] = [];
  const state = { ended: false };
  let request: http.ClientRequest;
  let settle!: () => void;
  const ended = new Promise<void>((resolve) => (settle = resolve));
  const finish = () => {
    state.ended = true;
    settle();
  };
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    request = http.get(`${base}${pathAndQuery}`, { headers }, (res) => {
      let partial = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        partial += chunk;
        let newline: number;
        while ((newline = partial.indexOf('\n')) >= 0) {
          const line = partial.slice(0, newline);
          partial = partial.slice(newline + 1);
          if (line.trim() !== '') events.push(JSON.parse(line) as WatchEvent);
        }
      });
      res.on('end', finish);
      res.on('close', finish);
      resolve(res);
    });
    request.on('error', (error) => {
      finish();
      reject(error);
    });
  });
  response.catch(() => undefined);
  return { ...client(events, ended, state, () => request.destroy()), response };
}

/** `[type, name, resourceVersion]` of each event: what ordering and exactly-once assertions compare. */
export function summary(events: WatchEvent[]): Array<[string, string, number]> {
  return events.map((e) => [e.type, e.object.metadata?.name, Number(e.object.metadata?.resourceVersion)]);
}
