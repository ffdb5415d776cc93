import type { IndexQuery } from '../index/model-index.js';
import { continueToken, type PageInfo, pageInfo, parseListQuery } from '../registry/list-query.js';
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
  const { page, info, meta } = await readList(ctx, objects, served, narrow);
  return ctx.reply.type(JSON_TYPE).send(listEnvelope(meta, page.items, info));
}

/** The page a list request asks for, and what its envelope (or table) says about it. */
export async function readList(
  ctx: HttpContext,
  objects: ObjectService,
  served: ServedModel,
  narrow: (query: IndexQuery) => IndexQuery = (query) => query,
) {
  const query = narrow(parseListQuery(ctx.request.target.query));
  const page = await objects.list(served, query);
  const info = pageInfo(page.total, query.page ?? 1, query.size);
  const meta: EnvelopeMeta = { apiVersion: served.model.apiVersion, kind: served.model.kind, revision: page.revision };
  // Kubernetes clients page with limit and follow metadata.continue until it is absent.
  if (ctx.request.target.query.limit !== undefined && info.hasNext) {
    meta.continue = continueToken(info.page + 1);
    meta.remainingItemCount = info.total - info.page * info.size;
  }
  return { page, info, meta };
}

/** The list envelope, built around already-serialized items so they are never parsed again. */
export interface EnvelopeMeta {
  apiVersion: string;
  kind: string;
  revision: number;
  /** Kubernetes paging: the token of the next page, and how many items follow this page. */
  continue?: string;
  remainingItemCount?: number;
}

export function listEnvelope(meta: EnvelopeMeta, items: Buffer[], info: PageInfo): Buffer {
  const { first, last, hasNext, hasPrevious, totalPages, page, size, total } = info;
  const chunk =
    meta.continue === undefined ? '' : `,"continue":"${meta.continue}","remainingItemCount":${meta.remainingItemCount}`;
  const head =
    `{"apiVersion":${JSON.stringify(meta.apiVersion)},"kind":${JSON.stringify(`${meta.kind}List`)},` +
    `"metadata":{"resourceVersion":"${meta.revision}"${chunk}},"page":${page},"size":${size},"total":${total},"items":[`;
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
