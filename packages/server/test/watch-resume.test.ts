import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { eventually } from './eventually.js';
import { BACKENDS, startTestServer, type TestResponse, type TestServer } from './harness.js';
import { NOTES, NOTES_PLUGINS, note, summary, type WatchEvent, watchWebSocket } from './watch-client.js';

const WRITES = Number(process.env.RESUME_WRITES ?? 10_000);
const OBJECTS = 192;
const LANES = 16;

/** A small seeded generator, so a failing run can be repeated. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Resume correctness: a client that drops its WebSocket at random points and resumes from the last revision it
 * received sees every change exactly once, in order, across 10,000 writes made while it comes and goes.
 */
describe.each(BACKENDS)('watch resume (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [NOTES_PLUGINS] });
    base = await t.server.listen();
  });
  afterAll(() => t.close());

  it(`delivers each of ${WRITES} writes exactly once, in order, across random disconnects`, {
    timeout: 180_000,
  }, async () => {
    const next = random(backend === 'sqlite' ? 7 : 11);
    const listed = await t.request('GET', NOTES);
    const start = Number(listed.body.metadata.resourceVersion);

    const received: WatchEvent[] = [];
    let last = start;
    let reconnects = 0;
    const points: number[] = [];
    let stopped = false;
    let current: { close(): void } | undefined;
    const follow = async () => {
      while (!stopped) {
        const dropAfter = 1 + Math.floor(next() * 1500);
        let seen = 0;
        points.push(last);
        const onEvent = (event: WatchEvent, socket: WebSocket) => {
          if (socket.readyState !== socket.OPEN) return;
          // Events after the decision to drop are the ones the client never processed.
          if (seen >= dropAfter) return;
          received.push(event);
          last = Number(event.object.metadata.resourceVersion);
          if (++seen >= dropAfter) socket.terminate();
        };
        const watch = (current = watchWebSocket(base, `${NOTES}?resourceVersion=${last}`, {
          headers: t.adminHeaders,
          onEvent,
        }));
        await watch.ended;
        reconnects++;
      }
    };
    const following = follow();

    // The writes: each lane owns its objects and makes exactly one write per step (create, update or delete), with
    // many lanes in flight at once.
    let written = 0;
    const writer = async (lane: number) => {
      const exists = new Set<string>();
      while (written < WRITES) {
        const i = written++;
        const name = `r-${lane}-${i % (OBJECTS / LANES)}`;
        let response: TestResponse;
        if (!exists.has(name)) {
          response = await t.request('POST', NOTES, note(name, { n: i }));
          exists.add(name);
        } else if (i % 97 === 0) {
          response = await t.request('DELETE', `${NOTES}/${name}`);
          exists.delete(name);
        } else {
          response = await t.request(
            'PATCH',
            `${NOTES}/${name}`,
            { spec: { n: i } },
            { 'content-type': 'application/merge-patch+json' },
          );
        }
        expect(response.status).toBeLessThan(300);
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, lane) => writer(lane)));

    const history = (await t.server.store.changesSince(start)).filter((c) => c.resource === 'notes.svc.run/notes');
    expect(history.length).toBe(WRITES);
    const final = history[history.length - 1]!.revision;
    await eventually(() => last >= final, 'the last revision', 60_000);
    stopped = true;
    current?.close();
    await following;

    expect(reconnects).toBeGreaterThan(3);
    const expected = history.map((c) => [c.type, c.name, c.revision]);
    const got = summary(received);
    const gotRevisions = new Set(got.map((g) => g[2]));
    const missing = expected.filter((e) => !gotRevisions.has(e[2] as number));
    expect(missing, `missed after reconnecting at ${points.join(', ')}`).toEqual([]);
    expect(got.length).toBe(expected.length);
    expect(got).toEqual(expected);
  });
});
