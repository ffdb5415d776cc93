/**
 * Answers as a meta.k8s.io Table when the request's `Accept` asks for one (docs/api.md "Tables"), as `kubectl get`
 * does: a list, one object, or each event of a watch (a Table with one row; only the first carries the column
 * definitions, as the API server sends them).
 */
import { badRequest, type ExtensionObject } from '@svc/plugin-api';
import { type IncludeObject, type TableVersion, toTable } from '../objects/table.js';
import { decodeObject } from '../registry/codec.js';
import { single } from '../registry/list-query.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { WatchSink } from '../watch/sink.js';
import { type HttpContext, JSON_TYPE } from './http-context.js';
import { readList } from './list-envelope.js';
import { negotiateAs } from './media-types.js';

const TABLES = [
  { g: 'meta.k8s.io', v: 'v1', as: 'Table' },
  { g: 'meta.k8s.io', v: 'v1beta1', as: 'Table' },
] as const;
const INCLUDE_OBJECT: readonly IncludeObject[] = ['None', 'Metadata', 'Object'];

export interface TableRequest {
  version: TableVersion;
  includeObject: IncludeObject;
}

/** The Table a request asks for, or undefined when it asks for objects. */
export function tableRequested(ctx: HttpContext): TableRequest | undefined {
  const wanted = negotiateAs(ctx.request.headers.accept, TABLES);
  if (!wanted) return undefined;
  const include = single(ctx.request.target.query, 'includeObject') ?? 'Metadata';
  if (!INCLUDE_OBJECT.includes(include as IncludeObject)) {
    throw badRequest(`query parameter "includeObject" must be one of ${INCLUDE_OBJECT.join(', ')}, got "${include}"`);
  }
  return { version: wanted.v, includeObject: include as IncludeObject };
}

export async function sendTableList(
  ctx: HttpContext,
  objects: ObjectService,
  served: ServedModel,
  table: TableRequest,
) {
  const { page, meta } = await readList(ctx, objects, served);
  const listMeta: Record<string, unknown> = { resourceVersion: String(meta.revision) };
  if (meta.continue !== undefined) {
    listMeta.continue = meta.continue;
    listMeta.remainingItemCount = meta.remainingItemCount;
  }
  const items = page.items.map((bytes) => decodeObject(bytes));
  const body = toTable(served.model, items, { ...table, withColumns: true, listMeta, now: new Date() });
  return ctx.reply.type(JSON_TYPE).send(JSON.stringify(body));
}

export function sendTableObject(ctx: HttpContext, served: ServedModel, bytes: Buffer, table: TableRequest) {
  const body = toTable(served.model, [decodeObject(bytes)], { ...table, withColumns: true, now: new Date() });
  return ctx.reply.type(JSON_TYPE).send(JSON.stringify(body));
}

/** A sink that turns each object event into a one-row Table before sending it (ERROR and BOOKMARK pass as they are). */
export function tableEventSink(sink: WatchSink, served: ServedModel, table: TableRequest): WatchSink {
  let first = true;
  const { sendFrame: _framesAreNotRewritten, ...rest } = sink;
  return {
    ...rest,
    get closed() {
      return sink.closed;
    },
    send(chunk) {
      const event = JSON.parse(chunk.toString()) as { type: string; object: ExtensionObject };
      if (event.type === 'ERROR' || event.type === 'BOOKMARK') return sink.send(chunk);
      const object = toTable(served.model, [event.object], { ...table, withColumns: first, now: new Date() });
      first = false;
      sink.send(Buffer.from(`${JSON.stringify({ type: event.type, object })}\n`));
    },
  };
}
