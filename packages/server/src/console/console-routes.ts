import { notFound } from '@svc/plugin-api';
import type { FastifyInstance } from 'fastify';
import { type DynamicRouter, publicGet, type RouteHandler } from '../api/dynamic-router.js';
import type { HttpContext } from '../api/http-context.js';
import { ConsoleFiles, isHashedAsset } from './console-files.js';

/** Only this server: the console's scripts, styles and API calls are all same-origin. */
export const CONSOLE_CSP =
  "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

const YEAR_S = 365 * 24 * 3600;

/**
 * The web console (README "The console"), public as `/docs` is: its files hold nothing secret, and every API call it
 * makes is authorized as usual. `/console/<file>` serves a built file; any other path under `/console/` answers
 * index.html, so the single-page app's own router shows it (a deep link, a reload). A browser asking for `/` is sent
 * to `/console/`; an API client asking for `/` (no text/html in Accept) gets what it always got.
 */
export function mountConsole(app: FastifyInstance, router: DynamicRouter<HttpContext>, files = new ConsoleFiles()) {
  const doc = { summary: 'The web console: a file it is built of, or its page (any other path)' };
  const route = (path: string, handler: RouteHandler<HttpContext>) => publicGet(path, handler, doc);
  router.add([
    route('/console', (ctx) => serve(ctx, files, '')),
    route('/console/*', (ctx, p) => serve(ctx, files, p['*'] ?? '')),
  ]);
  // Before the authorization gate (hooks run in the order added): `/` is nobody's resource.
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' || request.url !== '/') return;
    if (!/\btext\/html\b/.test(String(request.headers.accept ?? ''))) return;
    return reply.redirect('/console/', 302);
  });
}

async function serve({ request, reply }: HttpContext, files: ConsoleFiles, name: string) {
  let file = name === '' ? undefined : await files.get(name);
  const page = !file;
  if (!file) {
    // A missing asset is a 404 (a stale tab asking for an old hash should not get HTML for a script).
    if (name.startsWith('assets/')) throw notFound(`the console has no file "${name}"`);
    file = await files.get('index.html');
    if (!file) throw notFound('the console is not built: run `npm run build`');
  }
  const immutable = !page && isHashedAsset(name);
  reply
    .header('etag', file.etag)
    .header('cache-control', immutable ? `public, max-age=${YEAR_S}, immutable` : 'no-cache')
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (page || file.type.startsWith('text/html')) reply.header('content-security-policy', CONSOLE_CSP);
  const tags = String(request.headers['if-none-match'] ?? '');
  if (tags.split(',').some((t) => t.trim().replace(/^W\//, '') === file.etag)) return reply.code(304).send();
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (gzip) reply.header('content-encoding', 'gzip');
  return reply.type(file.type).send(gzip ? file.gzipped : file.bytes);
}
