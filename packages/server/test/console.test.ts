import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentTypeOf, isHashedAsset } from '../src/console/console-files.js';
import { REPO, startTestServer, type TestServer } from './harness.js';

const CSP =
  "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

describe('the console files', () => {
  it.each([
    ['assets/index-D9976rLN.js', true],
    ['assets/ConsoleLayout-B0eyjvhJ.css', true],
    ['index.html', false],
    ['assets/logo.svg', false],
    ['assets/../index-D9976rLN.js', false],
  ])('%s is a hashed asset: %s', (name, expected) => {
    expect(isHashedAsset(name)).toBe(expected);
  });

  it.each([
    ['index.html', 'text/html; charset=utf-8'],
    ['assets/a-12345678.JS', 'text/javascript; charset=utf-8'],
    ['assets/a-12345678.css', 'text/css; charset=utf-8'],
    ['LICENSE', 'application/octet-stream'],
  ])('%s is served as %s', (name, type) => {
    expect(contentTypeOf(name)).toBe(type);
  });
});

describe('svc serves the console at /console/', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ credentials: 'none' });
  }, 60_000);
  afterAll(() => t.close());

  it('answers the page with a self-only policy to anyone, at any path under /console/', async () => {
    for (const url of ['/console/', '/console', '/console/profile', '/console/people/deep/link']) {
      const page = await t.anonymous('GET', url);
      expect([url, page.status]).toEqual([url, 200]);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toBe(CSP);
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.text).toContain('<div id="app"></div>');
    }
  });

  it('serves a hashed asset for a year, gzipped when asked, and 404s a missing one', async () => {
    const script = readdirSync(path.join(REPO, 'packages/console/dist/assets')).find((f) => /^index-.*\.js$/.test(f));
    const asset = await t.anonymous('GET', `/console/assets/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const gzipped = await t.anonymous('GET', `/console/assets/${script}`, undefined, { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    const again = await t.anonymous('GET', `/console/assets/${script}`, undefined, {
      'if-none-match': String(asset.headers.etag),
    });
    expect(again.status).toBe(304);
    const missing = await t.anonymous('GET', '/console/assets/index-00000000.js');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
    expect((await t.anonymous('GET', '/console/../package.json')).text).not.toContain('"workspaces"');
  });

  it('redirects a browser asking for / to the console, and leaves API clients as they were', async () => {
    const browser = await t.anonymous('GET', '/', undefined, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(browser.status).toBe(302);
    expect(browser.headers.location).toBe('/console/');
    const api = await t.anonymous('GET', '/', undefined, { accept: 'application/json' });
    expect(api.status).toBe(401);
    expect(api.headers.location).toBeUndefined();
    expect((await t.anonymous('GET', '/')).status).toBe(401);
  });
});
