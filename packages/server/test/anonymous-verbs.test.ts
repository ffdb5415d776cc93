import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';

const READ_ONLY = [
  '/healthz',
  '/livez',
  '/readyz',
  '/version',
  '/openapi/v3',
  '/openapi.json',
  '/api',
  '/apis',
  '/docs',
];

/**
 * The built-in anonymous role grants only the verbs its URLs need (issue 28 item 7): reading the probes, the version
 * and what is public by route, and posting to /login and /logout. Any other method is refused before a handler runs.
 */
describe.each(BACKENDS)('what anonymous callers may do (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend, credentials: 'none' });
  }, 60_000);
  afterAll(() => t.close());

  it.each(READ_ONLY)('%s: GET and HEAD answer, POST, PUT, PATCH and DELETE are 401', async (path) => {
    expect((await t.anonymous('GET', path)).status).toBe(200);
    expect((await t.anonymous('HEAD', path)).status).toBe(200);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const refused = await t.anonymous(method, path, {});
      expect([method, refused.status]).toEqual([method, 401]);
      expect(refused.headers['www-authenticate']).toBeDefined();
    }
  });

  it('signs in and out with POST only', async () => {
    const signedIn = await t.anonymous('POST', '/login', TEST_ADMIN);
    expect(signedIn.status).toBe(200);
    expect((await t.anonymous('POST', '/logout')).status).toBe(204);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expect([method, (await t.anonymous(method, '/login')).status]).toEqual([method, 401]);
      expect([method, (await t.anonymous(method, '/logout')).status]).toEqual([method, 401]);
    }
  });
});
