import type { IndexQuery } from '../index/model-index.js';
import { type PageInfo, pageInfo, parseListQuery } from '../registry/list-query.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { type HttpContext, JSON_TYPE } from './http-context.js';

/**
 * Every list svc answers (docs/api.md "Lists"): the request's list parameters parsed, optionally narrowed by the route
 * (a user's own tokens or posts), the page read from the indexes, and the one envelope sent.
 */
export async function sendList(
  ctx: HttpContext,
  objects: ObjectService,
  served: ServedModel,
  narrow: (query: IndexQuery) => IndexQuery = (query) => query,
) {
  const query = narrow(parseListQuery(ctx.request.target.query));
  const page = await objects.list(served, query);
  const meta = { apiVersion: served.model.apiVersion, kind: served.model.kind, revision: page.revision };
  return ctx.reply
    .type(JSON_TYPE)
    .send(listEnvelope(meta, page.items, pageInfo(page.total, query.page ?? 1, query.size)));
}

/** The list envelope, built around already-serialized items so they are never parsed again. */
export function listEnvelope(
  meta: { apiVersion: string; kind: string; revision: number },
  items: Buffer[],
  info: PageInfo,
): Buffer {
  const { first, last, hasNext, hasPrevious, totalPages, page, size, total } = info;
  const head =
    `{"apiVersion":${JSON.stringify(meta.apiVersion)},"kind":${JSON.stringify(`${meta.kind}List`)},` +
    `"metadata":{"resourceVersion":"${meta.revision}"},"page":${page},"size":${size},"total":${total},"items":[`;
  const tail = `],"first":${first},"last":${last},"hasNext":${hasNext},"hasPrevious":${hasPrevious},"totalPages":${totalPages}}`;
  const parts: Buffer[] = [Buffer.from(head)];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts);
}

const COMMA = Buffer.from(',');
