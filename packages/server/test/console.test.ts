import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentTypeOf, isHashedAsset } from '../src/api/static-files.js';
import { REPO, startTestServer, type TestServer } from './harness.js';

/** The policy of a page whose nonce is `n`. */
const csp = (n: string) =>
  `default-src 'self'; script-src 'self' 'nonce-${n}'; style-src 'self' 'nonce-${n}'; img-src 'self' data:; ` +
  "font-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

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

  it('answers the page with a self-only policy and a fresh nonce to anyone, under /console/ and /uc/', async () => {
    const nonces = new Set<string>();
    for (const url of ['/console/', '/console', '/console/profile', '/console/people/deep/link', '/uc', '/uc/tokens']) {
      const page = await t.anonymous('GET', url);
      expect([url, page.status]).toEqual([url, 200]);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(String(page.headers['content-security-policy']))?.[1] ?? '';
      expect(page.headers['content-security-policy']).toBe(csp(nonce));
      expect(nonce).toHaveLength(24);
      nonces.add(nonce);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).toContain('<div id="app"></div>');
      // Every inline or module tag of the page carries this response's nonce, and no placeholder is left.
      expect(page.text).toContain(`<script type="importmap" nonce="${nonce}">`);
      expect(page.text).not.toContain('__SVC_CSP_NONCE__');
    }
    expect(nonces.size).toBe(6);
  });

  it('names every shared module in the import map, each one a file it serves', async () => {
    const page = await t.anonymous('GET', '/console/');
    const map = JSON.parse(/<script type="importmap"[^>]*>(.*?)<\/script>/s.exec(page.text)?.[1] ?? '{}');
    expect(Object.keys(map.imports)).toEqual(expect.arrayContaining(['vue', 'vue-router', '@svc/console-shared']));
    expect(map.imports['primevue/datatable']).toMatch(/^\/console\/assets\/shared-primevue-datatable-.{8}\.js$/);
    for (const url of Object.values(map.imports) as string[]) {
      const file = await t.anonymous('GET', url);
      expect([url, file.status, file.headers['content-type']]).toEqual([url, 200, 'text/javascript; charset=utf-8']);
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
