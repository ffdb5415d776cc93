import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { startTestServer, type TestServer } from './harness.js';
import { NOTES, NOTES_PLUGINS, note, watchHttp, watchWebSocket } from './watch-client.js';

const LIMIT = 256 * 1024;
const BIG = 'x'.repeat(60_000);

/**
 * A consumer that stops reading is ended with an ERROR event once its backlog passes the limit: the server holds at
 * most the limit plus one event for it, and writers are never held up.
 */
describe('a watcher that cannot keep up', () => {
  let t: TestServer;
  let base: string;
  beforeAll(async () => {
    t = await startTestServer({
      pluginsDirs: [NOTES_PLUGINS],
      serverOptions: { watch: { maxBufferedBytes: LIMIT, closeGraceMs: 60_000 } },
    });
    base = await t.server.listen();
  });
  afterAll(() => t.close());

  it('is ended with ERROR, its backlog stays bounded, and a watcher that keeps up is unaffected', async () => {
    await t.request('POST', NOTES, note('big', { text: '' }));
    const stalled = watchHttp(base, `${NOTES}?watch=true`, { headers: t.adminHeaders });
    const response = await stalled.response;
    await stalled.until((e) => e.length === 1, 'the initial ADDED');
    response.pause();
    const healthy = watchWebSocket(base, `${NOTES}?watch=true`, { headers: t.adminHeaders });
    await healthy.until((e) => e.length === 1, 'the initial ADDED');

    // Far more than the limit plus what the kernel's socket buffers absorb; every write completes meanwhile.
    const writes = 600;
    for (let i = 0; i < writes; i++) {
      const written = await t.request(
        'PATCH',
        `${NOTES}/big`,
        { spec: { text: `${i}${BIG}` } },
        { 'content-type': 'application/merge-patch+json' },
      );
      expect(written.status).toBe(200);
    }
    await eventually(() => t.server.watches.stats().watchers === 1, 'the stalled watcher to be ended');
    const eventSize = BIG.length + 1000;
    expect(t.server.watches.stats().peakBufferedBytes).toBeLessThanOrEqual(LIMIT + eventSize);

    await healthy.until((e) => e.length === writes + 1, 'every change at the healthy watcher');
    response.resume();
    await stalled.ended;
    const last = stalled.events[stalled.events.length - 1]!;
    expect(last).toEqual({
      type: 'ERROR',
      object: expect.objectContaining({ kind: 'Status', code: 429, reason: 'TooManyRequests' }),
    });
    expect(stalled.events.length).toBeLessThan(writes);
    healthy.close();
  });
});
