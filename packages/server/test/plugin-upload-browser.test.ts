import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE, login, type Session } from './auth-harness.js';
import { startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { multipart, zipOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const INSTALL = `${CONSOLE}/plugins/install`;

/**
 * The upload as the console's browser sends it: a session cookie, FormData (multipart field `file`) and the CSRF
 * header; and the answers a person sees when the upload is wrong.
 */
describe('plugin upload from a browser session', () => {
  let t: TestServer;
  let admin: Session;

  beforeAll(async () => {
    t = await startTestServer({ pluginsDirs: [] });
    admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => t?.close());

  it('refuses an upload without the CSRF header, and installs with it', async () => {
    const { body, headers } = multipart(await zipOf(path.join(FIXTURES, 'plugins-lifecycle/misnamed-template')));
    const { 'x-xsrf-token': _xsrf, ...cookieOnly } = admin.headers;
    const forged = await t.anonymous('POST', INSTALL, body, { ...cookieOnly, ...headers });
    expect(forged.status).toBe(403);
    expect((await t.request('GET', '/apis/plugin.svc.run/v1alpha1/plugins/misnamed-template')).status).toBe(404);

    const sent = await t.anonymous('POST', INSTALL, body, { ...admin.headers, ...headers });
    expect(sent.status).toBe(201);
    expect(sent.body.metadata.name).toBe('misnamed-template');
    expect(sent.body.status.phase).toBe('RESOLVED');
  });

  it('answers an archive over 64 MiB with a 413 problem naming the limit', async () => {
    const { body, headers } = multipart(Buffer.alloc(64 * 1024 * 1024 + 1, 1));
    const response = await t.anonymous('POST', INSTALL, body, { ...admin.headers, ...headers });
    expect(response.status).toBe(413);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.detail).toBe('the archive is larger than 64 MiB');
  });

  it('answers a raw archive body with a 415 naming multipart/form-data', async () => {
    const response = await t.anonymous('POST', INSTALL, Buffer.from('PK'), {
      ...admin.headers,
      'content-type': 'application/zip',
    });
    expect(response.status).toBe(415);
    expect(response.body.detail).toMatch(/a file upload: multipart\/form-data/);
  });

  it('answers a file that is no archive with a 400 a person can act on', async () => {
    const { body, headers } = multipart(Buffer.from('not an archive at all'), 'file', 'notes.txt');
    const response = await t.anonymous('POST', INSTALL, body, { ...admin.headers, ...headers });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^the plugin archive was refused: /);
  });
});
