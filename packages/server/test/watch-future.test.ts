import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';
import { watchHttp, watchWebSocket } from './watch-client.js';

/**
 * A watch from a revision the store has not reached yet (issue 15 item 3): the response starts at once (a client such
 * as client-node waits for the headers before it returns the watch), and only changes after that revision arrive.
 */
describe.each(BACKENDS)('a watch from a future revision (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  beforeAll(async () => {
    t = await startTestServer({ backend });
    base = await t.server.listen();
  }, 60_000);
  afterAll(() => t.close());

  it('answers its headers before any write, then sends the changes after that revision', async () => {
    const current = Number((await t.request('GET', PERSONS)).body.metadata.resourceVersion);
    const future = current + 2;
    const watch = watchHttp(base, `${PERSONS}?watch=true&resourceVersion=${future}`, { headers: t.adminHeaders });
    try {
      // Nothing is written until the response has started: a server that waited for the revision never answers.
      const response = await watch.response;
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const revisions: number[] = [];
      for (const name of ['one', 'two', 'three']) {
        const created = await t.request('POST', PERSONS, person(name, { name: `Future ${name}` }));
        revisions.push(Number(created.body.metadata.resourceVersion));
      }
      await watch.until((events) => events.some((e) => e.object.metadata.name === 'three'), 'three');
      expect(watch.events.length).toBeGreaterThan(0);
      // Every event is after the requested revision; the people controller's own writes may come between.
      for (const event of watch.events) expect(Number(event.object.metadata.resourceVersion)).toBeGreaterThan(future);
      // The creations at or before it are not sent; those after it are.
      const added = watch.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name);
      expect(added).toEqual(['one', 'two', 'three'].filter((_, i) => revisions[i]! > future));
      expect(added).toContain('three');
    } finally {
      watch.close();
    }
  });

  it('opens a WebSocket watch at once too', async () => {
    const current = Number((await t.request('GET', PERSONS)).body.metadata.resourceVersion);
    const watch = watchWebSocket(base, `${PERSONS}?resourceVersion=${current + 1000}`, { headers: t.adminHeaders });
    try {
      expect((await t.request('POST', PERSONS, person('four'))).status).toBe(201);
      expect(watch.isEnded()).toBe(false);
      expect(watch.events).toEqual([]);
    } finally {
      watch.close();
    }
  });
});
