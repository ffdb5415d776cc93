import { notFound } from '@svc/plugin-api';
import { type DynamicRoute, publicGet, type RouteHandler } from '../api/dynamic-router.js';
import { type HttpContext, JSON_TYPE } from '../api/http-context.js';
import { DOCS_CSP, docsAsset } from './docs-page.js';
import { groupVersionKey } from './documents.js';
import type { BuiltDocument, OpenApiDocuments } from './openapi-service.js';

/**
 * The OpenAPI routes (docs/api.md "OpenAPI"), public as discovery is (docs/access-control.md): the Kubernetes index
 * `/openapi/v3` and its per group version documents, svc's own 3.1 document `/openapi.json`, and the `/docs` page.
 * Each answers an ETag and a 304 to a matching `If-None-Match`; a group version asked for with the `?hash=` the index
 * gave is immutable, and one asked for with an old hash is redirected to the current one, as the API server does.
 */
export function openApiRoutes(documents: OpenApiDocuments): DynamicRoute<HttpContext>[] {
  const route = (path: string, handler: RouteHandler<HttpContext>) => publicGet(path, handler);
  const groupVersion = (ctx: HttpContext, key: string) => {
    const document = documents.groupVersion(key);
    if (!document) throw notFound(`no OpenAPI document: nothing is served in ${key.replace(/^apis?\//, '')}`);
    const hash = ctx.request.target.query.hash;
    if (hash === undefined) return sendDocument(ctx, document, 'no-cache');
    if (hash !== document.hash) return ctx.reply.redirect(`/openapi/v3/${key}?hash=${document.hash}`, 301);
    ctx.reply.header('expires', new Date(Date.now() + YEAR_MS).toUTCString());
    return sendDocument(ctx, document, 'public, immutable');
  };
  return [
    route('/openapi/v3', (ctx) => sendDocument(ctx, documents.index(), 'no-cache')),
    route('/openapi/v3/apis/:group/:version', (ctx, p) => groupVersion(ctx, groupVersionKey(p.group!, p.version!))),
    route('/openapi/v3/api/:version', (ctx, p) => groupVersion(ctx, groupVersionKey('', p.version!))),
    route('/openapi.json', (ctx) => sendDocument(ctx, documents.service(), 'no-cache')),
    route('/docs', (ctx) => sendAsset(ctx, '')),
    route('/docs/:file', (ctx, p) => sendAsset(ctx, p.file!)),
  ];
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

function sendDocument({ request, reply }: HttpContext, document: BuiltDocument, cacheControl: string) {
  const etag = `"${document.hash}"`;
  reply.header('etag', etag).header('cache-control', cacheControl);
  if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(JSON_TYPE).send(document.bytes);
}

async function sendAsset({ request, reply }: HttpContext, name: string) {
  const loading = docsAsset(name);
  if (!loading) throw notFound(`/docs has no file "${name}"`);
  const asset = await loading;
  reply
    .header('etag', asset.etag)
    .header('cache-control', 'no-cache')
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (name === '') reply.header('content-security-policy', DOCS_CSP);
  if (matches(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (gzip) reply.header('content-encoding', 'gzip');
  return reply.type(asset.type).send(gzip ? asset.gzipped : asset.bytes);
}

/** Whether an If-None-Match header names `etag` (or `*`); weak tags compare equal, as RFC 9110 says for GET. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim().replace(/^W\//, '');
    return t === '*' || t === etag;
  });
}
