import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-grants');
const PLUGINS = `${CONSOLE}/plugins`;
const BOOKS = '/apis/shelf.example.com/v1/books';

/**
 * Issue 28, item 3: a domain group belongs to one plugin. A plugin whose model or custom route is in a group another
 * plugin's models serve fails its start naming the owner, so its templates cannot open the other's objects (here to
 * anonymous visitors).
 */
describe.each(BACKENDS)('a group belongs to one plugin (%s)', (backend) => {
  let t: TestServer;

  const enable = async (name: string) => {
    const { body, headers } = multipart(await tgzOf(path.join(FIXTURES, name)));
    expect((await t.request('POST', `${PLUGINS}/install`, body, headers)).status).toBe(201);
    const started = await t.request('PUT', `${PLUGINS}/${name}/plugin-state`, { enable: true });
    expect(started.status).toBe(200);
    return started.body.status as { phase: string; conditions: Array<{ reason: string; message: string }> };
  };

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    expect((await enable('shelf-books')).phase).toBe('STARTED');
    const book = {
      apiVersion: 'shelf.example.com/v1',
      kind: 'Book',
      metadata: { name: 'dune' },
      spec: { title: 'Dune' },
    };
    expect((await t.request('POST', BOOKS, book)).status).toBe(201);
  }, 60_000);
  afterAll(() => t.close());

  it("fails a plugin registering a model in another plugin's group, naming the owner; the books stay closed", async () => {
    const status = await enable('shelf-squatter');
    expect(status.phase).toBe('FAILED');
    expect(status.conditions[0]!.reason).toBe('StartFailed');
    expect(status.conditions[0]!.message).toBe(
      'model Pen (shelf.example.com/v1) is in group "shelf.example.com", which plugin "shelf-books" owns (its models ' +
        'or routes are there); a group belongs to one plugin: use a group of your own',
    );
    expect((await t.anonymous('GET', `${BOOKS}/dune`)).status).toBe(401);
    expect((await t.anonymous('GET', BOOKS)).status).toBe(401);
    expect((await t.request('GET', '/api/v1alpha1/roles/shelf-squatter-role-view-public')).status).toBe(404);
    expect((await t.request('GET', '/apis/shelf.example.com/v1/pens')).status).toBe(404);
    expect(t.server.plugins.ownedGroups('shelf-books')).toContain('shelf.example.com');
    expect(t.server.plugins.ownedGroups('shelf-squatter')).not.toContain('shelf.example.com');
  });

  it("fails a plugin adding a custom route in another plugin's group", async () => {
    const status = await enable('shelf-route');
    expect(status.phase).toBe('FAILED');
    expect(status.conditions[0]!.message).toContain(
      'custom route GET /covers (shelf.example.com/v1) is in group "shelf.example.com", which plugin "shelf-books" owns',
    );
    expect((await t.request('GET', '/apis/shelf.example.com/v1/covers')).status).toBe(404);
  });

  it('lets another plugin take the group once its owner has stopped', async () => {
    const stopped = await t.request('PUT', `${PLUGINS}/shelf-books/plugin-state`, { enable: false });
    expect(stopped.body.status.phase).toBe('STOPPED');
    const retried = await t.request('PUT', `${PLUGINS}/shelf-route/plugin-state`, { enable: true });
    expect(retried.body.status.phase).toBe('STARTED');
    const back = await t.request('PUT', `${PLUGINS}/shelf-books/plugin-state`, { enable: true });
    expect(back.body.status.phase).toBe('FAILED');
    expect(back.body.status.conditions[0].message).toContain('which plugin "shelf-route" owns');
  });
});
