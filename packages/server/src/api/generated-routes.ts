import { badRequest, type ExtensionObject, notFound, unsupportedMediaType } from '@svc/plugin-api';
import { wantsWatch } from '../authz/request-info.js';
import { parseListQuery } from '../registry/list-query.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { ObjectService, Written } from '../registry/object-service.js';
import { patchFunction } from '../registry/patch-documents.js';
import type { WatchSink } from '../watch/sink.js';
import type { WatchService } from '../watch/watch-service.js';
import { APPLY_TYPE } from './apply-body.js';
import { sendApplied } from './apply-route.js';
import type { DynamicRoute } from './dynamic-router.js';
import { type HttpContext, JSON_TYPE } from './http-context.js';
import { sendList } from './list-envelope.js';
import { sendTableList, sendTableObject, tableEventSink, tableRequested } from './table-responses.js';
import { watchOverHttp, watchOverWebSocket } from './watch-transports.js';
import { deleteOptionsOf, writeOptionsOf } from './write-options.js';

type Params = Record<string, string | undefined>;

/**
 * The generated REST API of every model (docs/api.md "Generated routes"): one set of handlers, the model looked up
 * from the path. A model gets no handler code of its own.
 */
export function generatedRoutes(
  registry: ModelRegistry,
  objects: ObjectService,
  watches?: WatchService,
): DynamicRoute<HttpContext>[] {
  const model = (p: Params): ServedModel => {
    const served = registry.findByRoute(p.group ?? '', p.version ?? '', p.plural ?? '');
    if (!served) {
      const where = p.group ? `${p.group}/${p.version}` : p.version;
      throw notFound(`no resource "${p.plural}" is served in ${where}`);
    }
    return served;
  };
  const statusOf = (p: Params): ServedModel => {
    const served = model(p);
    if (p.subresource !== 'status' || !served.model.statusSubresource) {
      throw notFound(`${served.model.kind} has no subresource "${p.subresource}"`);
    }
    return served;
  };
  const sendObject = ({ reply }: HttpContext, bytes: Buffer, status = 200) =>
    reply.code(status).type(JSON_TYPE).send(bytes);
  const sendWritten = (ctx: HttpContext, written: Written) => sendObject(ctx, written.bytes);

  const handlers = {
    async list(ctx: HttpContext, p: Params) {
      // `watch` (docs/api.md "Watch"): a WebSocket on the collection path, or `?watch=true` as a stream.
      // A Table (docs/api.md "Tables") when Accept asks for one, as kubectl get (and get -w) does. On a WebSocket the
      // request is read as the watch starts, so a bad parameter is an ERROR event there.
      if (watches && ctx.websocket) {
        return watchOverWebSocket(
          watches,
          () => model(p),
          ctx.request,
          ctx.websocket,
          (sink, served) => {
            const table = tableRequested(ctx);
            return table ? tableEventSink(sink, served, table) : sink;
          },
        );
      }
      const table = tableRequested(ctx);
      const wrap = table ? (sink: WatchSink, served: ServedModel) => tableEventSink(sink, served, table) : undefined;
      const served = model(p);
      if (watches && ctx.request.method === 'GET' && wantsWatch(ctx.request.target.query))
        return watchOverHttp(watches, served, ctx.request, ctx.reply, wrap);
      if (table) return sendTableList(ctx, objects, served, table);
      return sendList(ctx, objects, served);
    },
    async create(ctx: HttpContext, p: Params) {
      const served = model(p);
      const written = await objects.create(served, requireJsonBody(ctx), writeOptionsOf(ctx));
      ctx.reply.header('location', `${ctx.request.target.routePath}/${written.object.metadata.name}`);
      return sendObject(ctx, written.bytes, 201);
    },
    async deleteCollection(ctx: HttpContext, p: Params) {
      const served = model(p);
      const { labels, fields } = parseListQuery(ctx.request.target.query);
      const kind = served.model.kind;
      // A long deletion says how far it got about once a second, tagged with the request's id (progress.ts).
      const options = deleteOptionsOf(ctx, served.model);
      const deleted = await objects.deleteCollection(served, { labels, fields }, options, (point) =>
        ctx.request.log.info(
          { kind, deleted: point.done, total: point.total, elapsedMs: point.elapsedMs },
          `deleting ${kind} objects: ${point.done} of ${point.total}`,
        ),
      );
      return ctx.reply.type(JSON_TYPE).send({ deleted });
    },
    async get(ctx: HttpContext, p: Params) {
      const table = tableRequested(ctx);
      const served = model(p);
      const bytes = await objects.getBytes(served, p.name!);
      return table ? sendTableObject(ctx, served, bytes, table) : sendObject(ctx, bytes);
    },
    async update(ctx: HttpContext, p: Params) {
      return sendWritten(ctx, await objects.update(model(p), p.name!, requireJsonBody(ctx), writeOptionsOf(ctx)));
    },
    async patch(ctx: HttpContext, p: Params) {
      if (contentType(ctx) === APPLY_TYPE) return sendApplied(ctx, objects, model(p), p.name!);
      return sendWritten(ctx, await objects.patch(model(p), p.name!, requestPatchFunction(ctx), writeOptionsOf(ctx)));
    },
    async delete(ctx: HttpContext, p: Params) {
      const served = model(p);
      return sendWritten(ctx, await objects.delete(served, p.name!, deleteOptionsOf(ctx, served.model)));
    },
    async getStatus(ctx: HttpContext, p: Params) {
      return sendObject(ctx, await objects.getBytes(statusOf(p), p.name!));
    },
    async updateStatus(ctx: HttpContext, p: Params) {
      return sendWritten(
        ctx,
        await objects.update(statusOf(p), p.name!, requireJsonBody(ctx), writeOptionsOf(ctx, 'status')),
      );
    },
    async patchStatus(ctx: HttpContext, p: Params) {
      const served = statusOf(p);
      return sendWritten(
        ctx,
        await objects.patch(served, p.name!, requestPatchFunction(ctx), writeOptionsOf(ctx, 'status')),
      );
    },
  };

  const routes: DynamicRoute<HttpContext>[] = [];
  for (const base of ['/apis/:group/:version/:plural', '/api/:version/:plural']) {
    // Every write of the object service takes dryRun (writeOptionsOf).
    const add = (method: string, path: string, handler: (ctx: HttpContext, p: Params) => unknown) =>
      routes.push({ method, path, owner: 'core', handler, ...(method === 'GET' ? {} : { dryRun: true }) });
    routes.push({ method: 'GET', path: base, owner: 'core', handler: handlers.list, websocket: true });
    add('POST', base, handlers.create);
    add('DELETE', base, handlers.deleteCollection);
    add('GET', `${base}/:name`, handlers.get);
    add('PUT', `${base}/:name`, handlers.update);
    // The one route that reads server-side apply's YAML (api/apply-body.ts refuses it everywhere else).
    routes.push({
      method: 'PATCH',
      path: `${base}/:name`,
      owner: 'core',
      handler: handlers.patch,
      acceptsApply: true,
      dryRun: true,
    });
    add('DELETE', `${base}/:name`, handlers.delete);
    add('GET', `${base}/:name/:subresource`, handlers.getStatus);
    add('PUT', `${base}/:name/:subresource`, handlers.updateStatus);
    add('PATCH', `${base}/:name/:subresource`, handlers.patchStatus);
  }
  return routes;
}

function requireJsonBody(ctx: HttpContext): unknown {
  const type = contentType(ctx);
  if (type !== 'application/json') {
    throw unsupportedMediaType(`send the object as application/json, not ${type || 'no content type'}`);
  }
  if (ctx.request.body === undefined || ctx.request.body === null) throw badRequest('a JSON object body is required');
  return ctx.request.body;
}

/** A function applying the request's patch document to the current object: JSON Patch or JSON Merge Patch. */
function requestPatchFunction(ctx: HttpContext): (current: ExtensionObject) => unknown {
  const type = contentType(ctx);
  if (type === APPLY_TYPE) throw unsupportedMediaType('server-side apply is served on the object, not on its status');
  if (ctx.request.target.query.force !== undefined) throw badRequest('force may only be given to a server-side apply');
  const body = ctx.request.body;
  // Strategic merge patch is applied as a merge patch: Kubernetes refuses it for custom resources, and accepting it
  // lets `kubectl patch` work at its default (docs/api.md "Generated routes").
  if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json') {
    return patchFunction('merge', body);
  }
  if (type === 'application/json-patch+json') return patchFunction('json', body);
  throw unsupportedMediaType(
    `PATCH takes application/json-patch+json (RFC 6902), application/merge-patch+json (RFC 7386) or ${APPLY_TYPE} (server-side apply), not ${type || 'no content type'}`,
  );
}

function contentType(ctx: HttpContext): string {
  return (ctx.request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}
