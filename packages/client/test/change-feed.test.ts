/** The client's change feed against a real listening svc: a page's changes, across a dropped watch, and 410 Gone. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, superAdminToken, type TestServer } from '../../server/test/harness.js';
import { type ChangeEvent, type ExtensionObject, type SvcApiError, SvcClient } from '../src/index.js';

type Post = ExtensionObject<{ title: string; content?: string }>;
// Posts: no controller writes them, so every change is the test's own.
const POSTS = { group: 'content.svc.run', version: 'v1alpha1', plural: 'posts' };
const post = (name: string, feed: string): Post => ({
  apiVersion: 'content.svc.run/v1alpha1',
  kind: 'Post',
  metadata: { name, labels: { feed } },
  spec: { title: name },
});

/** Waits (polling, bounded) until `done` holds. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A fetch that cuts the first watch stream after its first event, as a dropped connection would, and records every
 * watch's query: the feed must resume from the revision it saw, losing and repeating nothing.
 */
function cuttingFetch() {
  const watches: URLSearchParams[] = [];
  const fetch = (async (url: URL, init: RequestInit) => {
    const response = await globalThis.fetch(url, init);
    if (url.searchParams.get('watch') !== 'true') return response;
    watches.push(url.searchParams);
    if (watches.length > 1 || !response.body) return response;
    const reader = response.body.getReader();
    let text = '';
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        text += new TextDecoder().decode(value);
        const newline = text.indexOf('\n');
        if (newline < 0) return;
        controller.enqueue(new TextEncoder().encode(text.slice(0, newline + 1)));
        await reader.cancel();
        controller.close();
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, watches };
}

describe("@svc/client's change feed: a page's changes, resumed", () => {
  let t: TestServer;
  let baseUrl: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestServer();
    baseUrl = await t.server.listen();
    token = await superAdminToken(t, 'feed');
  }, 60_000);
  afterAll(() => t.close());

  it('hands out the changes after a list, in order, across a dropped watch, for its selectors only', async () => {
    const { fetch, watches } = cuttingFetch();
    const client = new SvcClient({ baseUrl, token, fetch });
    const posts = client.resource<Post>(POSTS);
    await posts.create(post('feed-a', 'yes'));
    const page = await posts.list({ labelSelector: 'feed=yes', size: 10 });
    expect(page.items.map((p) => p.metadata.name)).toEqual(['feed-a']);

    const seen: string[] = [];
    const feed = posts.changes({
      resourceVersion: page.metadata.resourceVersion,
      labelSelector: 'feed=yes',
      change: (event: ChangeEvent<Post>) => seen.push(`${event.type} ${event.object.metadata.name}`),
    });
    feed.start();
    await posts.create(post('feed-b', 'yes'));
    await until(() => seen.length === 1, 'the first change');
    // The first watch is cut now; these happen while the feed resumes.
    await posts.create(post('feed-other', 'no'));
    await posts.patch('feed-a', { spec: { content: 'changed' } });
    await posts.create(post('feed-c', 'yes'));
    await until(() => seen.length === 3, 'three changes');
    await feed.stop();
    expect(seen).toEqual(['ADDED feed-b', 'MODIFIED feed-a', 'ADDED feed-c']);
    expect(watches.length).toBeGreaterThanOrEqual(2);
    expect(watches[0]!.get('resourceVersion')).toBe(page.metadata.resourceVersion);
    const added = await posts.get('feed-b');
    expect(watches[1]!.get('resourceVersion')).toBe(added.metadata.resourceVersion);
    await client.close();
  });

  it('ends with the 410 when its revision is no longer kept, so the view lists again', async () => {
    const client = new SvcClient({ baseUrl, token });
    const posts = client.resource<Post>(POSTS);
    const page = await posts.list({ size: 1 });
    await posts.create(post('feed-gone', 'gone'));
    await posts.create(post('feed-gone-too', 'gone'));
    await t.server.store.compact(1);
    let ended: SvcApiError | undefined;
    const feed = posts.changes({
      resourceVersion: page.metadata.resourceVersion,
      change: () => undefined,
      ended: (error) => (ended = error),
    });
    feed.start();
    await until(() => ended !== undefined, 'the feed to end');
    expect(ended?.status).toBe(410);
    await feed.stop();
    await client.close();
  });
});
