import { randomBytes } from 'node:crypto';
import { notFound } from '@svc/plugin-api';
import type { HttpApp } from '../api/app.js';
import { type DynamicRouter, publicGet, type RouteHandler } from '../api/dynamic-router.js';
import type { HttpContext } from '../api/http-context.js';
import { isHashedAsset, type StaticFile, StaticFiles } from '../api/static-files.js';
import { firstExistingPath } from '../util/package-layout.js';

/** Written by the console's build on every tag it puts in index.html (packages/console/vite.config.ts). */
export const NONCE_PLACEHOLDER = '__SVC_CSP_NONCE__';

/**
 * Only this server: the console's scripts, styles and API calls are all same-origin. The page's own inline tags (the
 * import map) and the styles its component library injects carry the response's nonce; nothing else inline runs.
 */
export function consoleCsp(nonce: string, devOrigins: readonly string[] = []): string {
  // A plugin author's Vite dev server (SVC_PLUGIN_DEV_ORIGINS, development only): its modules, styles, reload socket.
  const dev = devOrigins.map((origin) => ` ${origin}`).join('');
  const sockets = devOrigins.map((origin) => ` ${origin.replace(/^http/, 'ws')}`).join('');
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${dev}`,
    `style-src 'self' 'nonce-${nonce}'${dev}`,
    ...(devOrigins.length > 0 ? [`connect-src 'self'${dev}${sockets}`] : []),
    "img-src 'self' data:",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

const YEAR_S = 365 * 24 * 3600;

/** The console's built files: `console/` of the installed package, or the repository's packages/console/dist. */
export const CONSOLE_DIST = firstExistingPath([
  new URL('../../console/', import.meta.url),
  new URL('../../../console/dist/', import.meta.url),
]);

/**
 * The web console (README "The console"), public as `/docs` is: its files hold nothing secret, and every API call it
 * makes is authorized as usual. `/console/<file>` serves a built file; any other path under `/console/`, and any
 * under `/uc/` (the personal center, the same app), answers its page, so the app's own router shows it (a deep link,
 * a reload). A browser asking for `/` is sent to `/console/`; an API client asking for `/` (no text/html in Accept)
 * gets what it always got.
 */
export function mountConsole(
  app: HttpApp,
  router: DynamicRouter<HttpContext>,
  files = new StaticFiles(CONSOLE_DIST),
  devOrigins: readonly string[] = [],
) {
  const doc = { summary: 'The web console: a file it is built of, or its page (any other path)' };
  const route = (path: string, handler: RouteHandler<HttpContext>) => publicGet(path, handler, doc);
  router.add([
    route('/console', (ctx) => serve(ctx, files, '', devOrigins)),
    route('/console/*', (ctx, p) => serve(ctx, files, p['*'] ?? '', devOrigins)),
    route('/uc', (ctx) => serve(ctx, files, '', devOrigins)),
    route('/uc/*', (ctx) => serve(ctx, files, '', devOrigins)),
  ]);
  // Before the authorization gate (hooks run in the order added): `/` is nobody's resource. A callback hook: every
  // request passes it, and it needs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    if (
      request.method !== 'GET' ||
      request.url !== '/' ||
      !/\btext\/html\b/.test(String(request.headers.accept ?? ''))
    ) {
      done();
      return;
    }
    void reply.redirect('/console/', 302);
  });
}

async function serve(ctx: HttpContext, files: StaticFiles, name: string, devOrigins: readonly string[]) {
  const file = name === '' || name === 'index.html' ? undefined : await files.get(name);
  if (file) return sendFile(ctx, file, isHashedAsset(name));
  // A missing asset is a 404 (a stale tab asking for an old hash should not get HTML for a script).
  if (name.startsWith('assets/')) throw notFound(`the console has no file "${name}"`);
  return sendPage(ctx, files, devOrigins);
}

/** A built file: cached by ETag, or forever when its name carries its hash. */
function sendFile({ request, reply }: HttpContext, file: StaticFile, immutable: boolean) {
  reply
    .header('etag', file.etag)
    .header('cache-control', immutable ? `public, max-age=${YEAR_S}, immutable` : 'no-cache')
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  const tags = String(request.headers['if-none-match'] ?? '');
  if (tags.split(',').some((t) => t.trim().replace(/^W\//, '') === file.etag)) return reply.code(304).send();
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (gzip) reply.header('content-encoding', 'gzip');
  return reply.type(file.type).send(gzip ? file.gzipped : file.bytes);
}

/**
 * The app's page, with a fresh nonce in its policy and on its tags: never cached (a nonce is good for one response),
 * and small, so it goes uncompressed.
 */
async function sendPage({ reply }: HttpContext, files: StaticFiles, devOrigins: readonly string[]) {
  const page = await files.get('index.html');
  if (!page) throw notFound('the console is not built: run `npm run build`');
  const nonce = randomBytes(16).toString('base64');
  return reply
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', consoleCsp(nonce, devOrigins))
    .type(page.type)
    .send(page.bytes.toString('utf8').replaceAll(NONCE_PLACEHOLDER, nonce));
}
