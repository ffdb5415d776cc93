import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';
import { NOTES, NOTES_PLUGINS, note, summary, type WatchEvent, watchHttp, watchWebSocket } from './watch-client.js';

const merge = { 'content-type': 'application/merge-patch+json' };

/** Watch over both transports: the initial list, selection moves, history replay, 410, bookmarks and timeouts. */
describe.each(BACKENDS)('watch streams (%s)', (backend) => {
  let t: TestServer;
  let base: string;
  beforeAll(async () => {
    t = await startTestServer({
      backend,
      pluginsDirs: [NOTES_PLUGINS],
      serverOptions: { watch: { bookmarkIntervalMs: 50 } },
    });
    base = await t.server.listen();
  });
  afterAll(() => t.close());

  const revisionOf = (response: { body: any }) => Number(response.body.metadata.resourceVersion);

  it('starts with the current objects as ADDED, then streams changes (WebSocket)', async () => {
    await t.request('POST', NOTES, note('w-one', { color: 'red' }));
    await t.request('POST', NOTES, note('w-two', { color: 'blue' }));
    const watch = watchWebSocket(base, `${NOTES}?fieldSelector=spec.color=red`, { headers: t.adminHeaders });
    await watch.until((e) => e.length === 1, 'the initial ADDED');
    expect(summary(watch.events)[0]?.slice(0, 2)).toEqual(['ADDED', 'w-one']);
    const changed = await t.request('PATCH', `${NOTES}/w-one`, { spec: { text: 'hi' } }, merge);
    await watch.until((e) => e.length === 2, 'the MODIFIED');
    expect(watch.events[1]).toMatchObject({ type: 'MODIFIED', object: { spec: { text: 'hi' } } });
    expect(watch.events[1]!.object.metadata.resourceVersion).toBe(changed.body.metadata.resourceVersion);
    watch.close();
  });

  it('serves ?watch=true as newline-delimited JSON over HTTP', async () => {
    const watch = watchHttp(base, `${NOTES}?watch=1&labelSelector=example.com/http=yes`, { headers: t.adminHeaders });
    const response = await watch.response;
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const created = await t.request('POST', NOTES, note('h-one', {}, { 'example.com/http': 'yes' }));
    await t.request('DELETE', `${NOTES}/h-one`);
    await watch.until((e) => e.length === 2, 'ADDED and DELETED');
    expect(summary(watch.events).map(([type, name]) => [type, name])).toEqual([
      ['ADDED', 'h-one'],
      ['DELETED', 'h-one'],
    ]);
    expect(Number(watch.events[1]!.object.metadata.resourceVersion)).toBeGreaterThan(revisionOf(created));
    watch.close();
  });

  it('answers a bad watch request over HTTP with a 400 and over WebSocket with an ERROR event', async () => {
    const http = await t.request('GET', `${NOTES}?watch=true&fieldSelector=spec.unknown=1`);
    expect(http.status).toBe(400);
    expect(http.body.detail).toMatch(/spec\.unknown/);
    const ws = watchWebSocket(base, `${NOTES}?resourceVersion=abc`, { headers: t.adminHeaders });
    await ws.ended;
    expect(ws.events).toEqual([{ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 400 }) }]);
  });

  const moves = async (label: string) => {
    const key = 'example.com/move';
    const start = revisionOf(await t.request('GET', NOTES));
    await t.request('POST', NOTES, note(`m-${label}`, {}, { [key]: label }));
    await t.request('PATCH', `${NOTES}/m-${label}`, { metadata: { labels: { [key]: 'elsewhere' } } }, merge);
    await t.request('PATCH', `${NOTES}/m-${label}`, { spec: { text: 'unseen' } }, merge);
    await t.request('PATCH', `${NOTES}/m-${label}`, { metadata: { labels: { [key]: label } } }, merge);
    await t.request('PATCH', `${NOTES}/m-${label}`, { spec: { text: 'seen' } }, merge);
    await t.request('POST', NOTES, note(`m-${label}-other`, {}, { [key]: 'elsewhere' }));
    await t.request('DELETE', `${NOTES}/m-${label}`);
    return { start, selector: `labelSelector=${key}=${label}` };
  };
  const expectedMoves = (events: WatchEvent[], label: string) => {
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', `m-${label}`],
      ['DELETED', `m-${label}`],
      ['ADDED', `m-${label}`],
      ['MODIFIED', `m-${label}`],
      ['DELETED', `m-${label}`],
    ]);
    // Leaving the selection: the state before the move, at the move's revision.
    expect(events[1]!.object.metadata.labels['example.com/move']).toBe(label);
    expect(events[2]!.object.spec.text).toBe('unseen');
    const revisions = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect([...revisions].sort((a, b) => a - b)).toEqual(revisions);
  };

  it('reports objects moving into and out of the selection, live', async () => {
    const watch = watchWebSocket(base, `${NOTES}?labelSelector=example.com/move=live`, { headers: t.adminHeaders });
    // Once the watch has seen this, it is live: the moves below reach it as they happen.
    await t.request('POST', NOTES, note('sentinel-live', {}, { 'example.com/move': 'live' }));
    await watch.until((e) => e.length === 1, 'the sentinel');
    await moves('live');
    await watch.until((e) => e.length === 6, 'five more events');
    expectedMoves(watch.events.slice(1), 'live');
    watch.close();
  });

  it('reports the same moves when replaying history from a revision', async () => {
    const { start, selector } = await moves('replay');
    const watch = watchWebSocket(base, `${NOTES}?resourceVersion=${start}&${selector}`, { headers: t.adminHeaders });
    await watch.until((e) => e.length === 5, 'five replayed events');
    expectedMoves(watch.events, 'replay');
    watch.close();
  });

  it('sends ERROR 410 for a compacted revision; a re-list and a watch from its revision then work', async () => {
    const first = await t.request('POST', NOTES, note('old-1'));
    for (let i = 0; i < 5; i++) await t.request('PATCH', `${NOTES}/old-1`, { spec: { n: i } }, merge);
    await t.server.store.compact(2);
    const expired = watchWebSocket(base, `${NOTES}?resourceVersion=${revisionOf(first)}`, { headers: t.adminHeaders });
    await expired.ended;
    expect(expired.events).toEqual([
      {
        type: 'ERROR',
        object: expect.objectContaining({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 410,
          reason: 'Expired',
        }),
      },
    ]);
    const listed = await t.request('GET', NOTES);
    const resumed = watchWebSocket(base, `${NOTES}?resourceVersion=${listed.body.metadata.resourceVersion}`, {
      headers: t.adminHeaders,
    });
    const changed = await t.request('PATCH', `${NOTES}/old-1`, { spec: { n: 99 } }, merge);
    await resumed.until((e) => e.length === 1, 'the change after the list');
    expect(summary(resumed.events)).toEqual([['MODIFIED', 'old-1', revisionOf(changed)]]);
    resumed.close();
  });

  it('sends bookmarks with the latest revision only to watches that ask for them', async () => {
    const quiet = watchWebSocket(base, `${NOTES}?resourceVersion=${revisionOf(await t.request('GET', NOTES))}`, {
      headers: t.adminHeaders,
    });
    const written = await t.request('POST', NOTES, note('bm-1'));
    const marked = watchHttp(
      base,
      `${NOTES}?watch=true&allowWatchBookmarks=true&resourceVersion=${revisionOf(written)}`,
      { headers: t.adminHeaders },
    );
    await marked.until((e) => e.filter((x) => x.type === 'BOOKMARK').length >= 3, 'three bookmarks');
    const bookmark = marked.events.find((e) => e.type === 'BOOKMARK')!;
    expect(bookmark.object).toEqual({
      apiVersion: 'notes.svc.run/v1',
      kind: 'Note',
      metadata: { resourceVersion: expect.any(String) },
    });
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(revisionOf(written));
    await quiet.until((e) => e.length >= 1, 'the ADDED');
    expect(quiet.events.map((e) => e.type)).toEqual(['ADDED']);
    quiet.close();
    marked.close();
  });

  it('ends a watch after timeoutSeconds, on both transports', async () => {
    const ws = watchWebSocket(base, `${NOTES}?timeoutSeconds=1`, { headers: t.adminHeaders });
    const http = watchHttp(base, `${NOTES}?watch=true&timeoutSeconds=1`, { headers: t.adminHeaders });
    await Promise.all([ws.ended, http.ended]);
    expect(ws.events.every((e) => e.type === 'ADDED')).toBe(true);
    expect(http.events.every((e) => e.type === 'ADDED')).toBe(true);
  });

  it('refuses a WebSocket on a path that does not watch', async () => {
    const ws = watchWebSocket(base, `${NOTES}/w-one`, { headers: t.adminHeaders });
    await ws.ended;
    expect(ws.events).toEqual([]);
  });
});
