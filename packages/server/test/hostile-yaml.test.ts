import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const SETUP = '/apis/api.console.svc.run/v1alpha1/setup';
const PLUGINS = '/apis/api.console.svc.run/v1alpha1/plugins';

/** The shapes: 20,000 short keys (189 KB, 8.3 s), 4 MB of nested brackets (21 s), 100,000 keys (988 KB, 230 s). */
const keys = (count: number) => Array.from({ length: count }, (_, i) => `k${i}: 1\n`).join('');
const HOSTILE = {
  '20,000 keys': keys(20_000),
  '4 MB of nested brackets': `${'['.repeat(2 * 1024 * 1024)}${']'.repeat(2 * 1024 * 1024)}`,
  '100,000 keys': keys(100_000),
};

/**
 * Server-side apply's YAML is read only where it applies (issue 28 item 1): everywhere else the media type is a 415
 * before the body is read, and on the apply route YAML is read within its own limits, naming the one crossed.
 */
describe.each(BACKENDS)('YAML bodies (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  }, 60_000);
  afterAll(() => t.close());

  it.each(Object.entries(HOSTILE))('%s to anonymous POST /login and the setup route: 415', async (_name, body) => {
    for (const path of ['/login', SETUP]) {
      const refused = await t.anonymous('POST', path, body, APPLY);
      expect(refused.status).toBe(415);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.detail).toBe(
        `application/apply-patch+yaml (server-side apply) is read only by PATCH on an object of a model, not by POST ${path}`,
      );
    }
  });

  it('is a 415 on every other route that takes a body, the status subresource included', async () => {
    expect((await t.request('POST', PERSONS, 'apiVersion: v1', APPLY)).status).toBe(415);
    expect((await t.request('PUT', `${PERSONS}/ann`, 'apiVersion: v1', APPLY)).status).toBe(415);
    expect((await t.request('PATCH', `${PERSONS}/ann/status`, 'status: {}', APPLY)).status).toBe(415);
    const custom = await t.request('POST', '/apis/api.console.svc.run/v1alpha1/accessreviews', 'a: 1', APPLY);
    expect(custom.status).toBe(415);
  });

  it('on the apply route, names the limit each hostile shape crosses', async () => {
    const applied = (body: string) => t.request('PATCH', `${PERSONS}/ann?fieldManager=test`, body, APPLY);
    const tokens = await applied(HOSTILE['20,000 keys']);
    expect(tokens.status).toBe(400);
    expect(tokens.body.detail).toBe(
      'the apply configuration, line 3334, column 6: a document of more than 10000 tokens (keys, values and marks) is not accepted',
    );
    for (const body of [HOSTILE['4 MB of nested brackets'], HOSTILE['100,000 keys']]) {
      const large = await applied(body);
      expect(large.status).toBe(413);
      expect(large.body.detail).toBe(
        'the apply configuration is larger than the 256 KiB accepted as YAML; as JSON (what kubectl sends), up to the 4 MiB of any body is accepted',
      );
    }
    const deep = await applied(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(deep.status).toBe(400);
    expect(deep.body.detail).toBe('the apply configuration, line 1, column 101: nests deeper than 100 levels');
    const late = await applied(`${keys(3000)}k5: 2\n`);
    expect(late.status).toBe(400);
    expect(late.body.detail).toBe('the apply configuration, line 3001, column 1: the key "k5" is given more than once');
    expect((await t.request('GET', `${PERSONS}/ann`)).status).toBe(404);
  });

  it('applies JSON as JSON, up to the body limit, and as YAML would (a key given twice is refused)', async () => {
    // Larger than YAML may be, and still an object within the annotations' limit (256 KiB of keys and values).
    const NOTES_BYTES = 256 * 1024 - 'example.com/notes'.length;
    const big = person('jo', { name: 'Jo' });
    (big.metadata as Record<string, unknown>).annotations = { 'example.com/notes': 'x'.repeat(NOTES_BYTES) };
    const text = JSON.stringify(big);
    expect(text.length).toBeGreaterThan(256 * 1024);
    const created = await t.request('PATCH', `${PERSONS}/jo?fieldManager=kubectl`, text, APPLY);
    expect(created.status).toBe(201);
    expect(created.body.metadata.annotations['example.com/notes']).toHaveLength(NOTES_BYTES);
    expect(created.body.metadata.managedFields[0].fieldsV1['f:spec']).toEqual({
      'f:name': {},
      'f:age': {},
      'f:gender': {},
    });
    const twice = await t.request(
      'PATCH',
      `${PERSONS}/jo?fieldManager=kubectl`,
      '{"apiVersion":"people.svc.run/v1alpha1","kind":"Person","metadata":{"name":"jo"},"spec":{"age":1,"age":2}}',
      APPLY,
    );
    expect(twice.status).toBe(400);
    expect(twice.body.detail).toBe('the apply configuration: the key "age" is given more than once');
    // A YAML flow mapping is not JSON: read as YAML.
    const flow = await t.request(
      'PATCH',
      `${PERSONS}/kim?fieldManager=kubectl`,
      '{apiVersion: people.svc.run/v1alpha1, kind: Person, metadata: {name: kim}, spec: {name: Kim, age: 7}}',
      APPLY,
    );
    expect(flow.status).toBe(201);
    expect(flow.body.spec).toMatchObject({ name: 'Kim', age: 7 });
    // The JSON parser's own refusals hold on the JSON path.
    const poisoned = await t.request(
      'PATCH',
      `${PERSONS}/kim?fieldManager=kubectl`,
      '{"apiVersion":"people.svc.run/v1alpha1","kind":"Person","metadata":{"name":"kim"},"__proto__":{"x":1}}',
      APPLY,
    );
    expect(poisoned.status).toBe(400);
    expect(poisoned.body.detail).toMatch(/not valid JSON/);
  });
});

/** A plugin folder with these files, packed as an uploaded archive. */
async function archiveOf(files: Record<string, string>): Promise<Buffer> {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-yaml-plugin-'));
  try {
    const folder = path.join(root, 'yaml-plugin');
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(folder, name)), { recursive: true });
      await writeFile(path.join(folder, name), text);
    }
    return await tgzOf(folder);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const MANIFEST =
  'apiVersion: plugin.svc.run/v1alpha1\nkind: Plugin\nmetadata:\n  name: yaml-plugin\nspec:\n  version: 1.0.0\n  requires: ">=0.1.0"\n  main: index.js\n';

/** plugin.yaml and extensions/ of an uploaded archive are read as untrusted YAML, within the same limits. */
describe.each(BACKENDS)('YAML in a plugin archive (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
  }, 60_000);
  afterAll(() => t.close());

  const install = async (files: Record<string, string>) => {
    const { body, headers } = multipart(await archiveOf({ 'index.js': 'export default { start() {} };\n', ...files }));
    return t.request('POST', `${PLUGINS}/install`, body, headers);
  };

  it('refuses a plugin.yaml of 20,000 keys, or with a key given twice, naming where', async () => {
    const large = await install({ 'plugin.yaml': keys(20_000) });
    expect(large.status).toBe(400);
    expect(large.body.detail).toBe(
      'plugin.yaml: cannot be read as YAML: line 3334, column 6: a document of more than 10000 tokens (keys, values and marks) is not accepted',
    );
    const twice = await install({ 'plugin.yaml': `${MANIFEST}kind: Plugin\n` });
    expect(twice.status).toBe(400);
    expect(twice.body.detail).toBe(
      'plugin.yaml: cannot be read as YAML: line 9, column 1: the key "kind" is given more than once',
    );
    expect((await t.request('GET', `${PLUGINS}/yaml-plugin`)).status).toBe(404);
  });

  it('fails the start of a plugin whose extensions/ file is refused, naming the file and line', async () => {
    const installed = await install({ 'plugin.yaml': MANIFEST, 'extensions/roles.yaml': `a: &x 1\nb: *x\n` });
    expect(installed.status).toBe(201);
    const started = await t.request('PUT', `${PLUGINS}/yaml-plugin/plugin-state`, { enable: true });
    expect(started.body.status.phase).toBe('FAILED');
    expect(started.body.status.conditions[0].message).toBe(
      'extensions/roles.yaml, line 1, column 4: anchors and aliases (&x) are not accepted; write the value out',
    );
  });
});

/**
 * Over a real socket, the hostile shapes sent to the anonymous routes and the apply route leave the server answering:
 * a `/healthz` probe sent throughout never waits long (the old code held the loop 8 to 230 s).
 */
describe('hostile YAML bodies over a socket', () => {
  let t: TestServer;
  let url: string;
  beforeAll(async () => {
    t = await startTestServer();
    url = await t.server.listen();
  }, 60_000);
  afterAll(() => t.close());

  it('never hold /healthz for long', async () => {
    let sending = true;
    let slowest = 0;
    const probe = (async () => {
      while (sending) {
        const started = performance.now();
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
      }
    })();
    const dense = keys(3300);
    const sends: Array<[string, string, Record<string, string>, number]> = [
      ['POST', '/login', {}, 415],
      ['POST', SETUP, {}, 415],
      ['PATCH', `${PERSONS}/ann?fieldManager=test`, t.adminHeaders, 0],
    ];
    const statuses: number[] = [];
    for (const [method, path, headers] of sends) {
      for (const body of [...Object.values(HOSTILE), dense]) {
        const response = await fetch(`${url}${path}`, { method, body, headers: { ...headers, ...APPLY } });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
    }
    sending = false;
    await probe;
    expect(statuses).toEqual([415, 415, 415, 415, 415, 415, 415, 415, 400, 413, 413, 400]);
    // A generous bound: it catches the old stalls of seconds, not a slow machine.
    expect(slowest).toBeLessThan(1000);
  }, 60_000);
});
