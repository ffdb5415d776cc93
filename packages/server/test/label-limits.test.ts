import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtensionClient } from '../src/registry/client.js';
import { as, CONSOLE, login, userWithRoles } from './auth-harness.js';
import { BACKENDS, PERSONS, person, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-labels');
const UC_POSTS = '/apis/uc.api.content.svc.run/v1alpha1/posts';
const labels = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`l${i}`, 'v']));

/**
 * Labels per object are capped at 256 and 64 KiB of keys and values (issue 28 item 2), for every model and every way
 * an object is written: the generated routes, a feature's own routes, the in-process client, declared objects.
 */
describe.each(BACKENDS)('the labels of an object (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  }, 60_000);
  afterAll(() => t.close());

  it('256 are stored, 257 are a 400 naming the limit, on the generated routes', async () => {
    expect((await t.request('POST', PERSONS, person('ann', {}, labels(256)))).status).toBe(201);
    const refused = await t.request('POST', PERSONS, person('bea', {}, labels(257)));
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { path: '/metadata/labels', message: 'must have at most 256 labels (has 257)' },
    ]);
    const patched = await t.request(
      'PATCH',
      `${PERSONS}/ann`,
      { metadata: { labels: { extra: 'v' } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(patched.status).toBe(400);
    expect(patched.body.detail).toMatch(/\/metadata\/labels must have at most 256 labels \(has 257\)/);
    expect((await t.request('GET', `${PERSONS}/bea`)).status).toBe(404);
  });

  it("refuses a contributor's post of 90,000 labels at once (under the body's 100,000 values), storing nothing", async () => {
    const admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
    const contributor = await userWithRoles(t, admin, 'cathy', ['contributor']);
    const post = {
      apiVersion: 'uc.api.content.svc.run/v1alpha1',
      kind: 'Post',
      metadata: { name: 'many', labels: labels(90_000) },
      spec: { title: 'Many' },
    };
    const refused = await as(t, contributor)('POST', UC_POSTS, post);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/\/metadata\/labels must have at most 256 labels \(has 90000\)/);
    expect((await as(t, contributor)('GET', UC_POSTS)).body.items).toEqual([]);
  });

  it('refuses them through the in-process client', async () => {
    const client = createExtensionClient(t.server.registry, t.server.objects);
    await expect(client.create(person('cid', {}, labels(300)))).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/\/metadata\/labels must have at most 256 labels \(has 300\)/),
    });
  });

  it('fails a plugin whose extensions/ declares an object with too many, naming it', async () => {
    const { body, headers } = multipart(await tgzOf(path.join(FIXTURES, 'labels-many')));
    expect((await t.request('POST', `${CONSOLE}/plugins/install`, body, headers)).status).toBe(201);
    const started = await t.request('PUT', `${CONSOLE}/plugins/labels-many/plugin-state`, { enable: true });
    expect(started.body.status.phase).toBe('FAILED');
    // 257 declared, and the label naming the plugin that the service adds.
    expect(started.body.status.conditions[0].message).toBe(
      'extensions/roles.yaml#1 (Role "labels-many-role-view"): Role is invalid: /metadata/labels must have at most 256 labels (has 258)',
    );
  });
});
