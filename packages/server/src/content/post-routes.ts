import {
  apisPath,
  badRequest,
  CONTENT_API_VERSION,
  KIND,
  notFound,
  PUBLIC_CONTENT_GROUP,
  USER_CONTENT_GROUP,
} from '@svc/plugin-api';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { callerOf, type HttpContext, JSON_TYPE } from '../api/http-context.js';
import { sendList } from '../api/list-envelope.js';
import { writeOptionsOf } from '../api/write-options.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { Post } from './post-model.js';

const UC = `${apisPath(USER_CONTENT_GROUP)}/posts`;
const PUBLIC = `${apisPath(PUBLIC_CONTENT_GROUP)}/posts`;

/**
 * Posts for their owners (user center: a user works on their own posts only, the server sets the owner) and for
 * everyone (published posts). Editors manage all posts through the generated API of `content.svc.run`.
 */
export function postRoutes(objects: ObjectService, posts: ServedModel): DynamicRoute<HttpContext>[] {
  const owner = (ctx: HttpContext) => {
    const name = callerOf(ctx.request).username;
    if (!name) throw badRequest('sign in to work on your posts');
    return name;
  };
  const own = async (ctx: HttpContext, name: string) => {
    const post = await objects.get<Post>(posts, name);
    if (post.spec?.owner !== owner(ctx)) throw notFound(`Post "${name}" not found`);
    return post;
  };
  const send = (ctx: HttpContext, body: unknown, status = 200) =>
    ctx.reply
      .code(status)
      .type(JSON_TYPE)
      .send(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  const list = async (ctx: HttpContext, field: string) => {
    const only = { field, operator: 'in' as const, values: [field === 'spec.owner' ? owner(ctx) : 'true'] };
    return sendList(ctx, objects, posts, (query) => ({ ...query, fields: [...query.fields, only] }));
  };
  const setPublished = (published: boolean) => async (ctx: HttpContext, p: Record<string, string | undefined>) => {
    const post = await own(ctx, p.name!);
    const spec = { ...post.spec!, published, publishedAt: published ? new Date().toISOString() : undefined };
    if (!published) delete spec.publishedAt;
    return send(ctx, (await objects.update(posts, post.metadata.name, { ...post, spec }, writeOptionsOf(ctx))).bytes);
  };
  const body = (ctx: HttpContext) => {
    const b = ctx.request.body as Post | undefined;
    if (!b || typeof b !== 'object') throw badRequest('a JSON Post body is required');
    return b;
  };

  // Every write here goes through the object service with the request's options, so each honours dryRun=All.
  const route = (
    method: string,
    path: string,
    handler: DynamicRoute<HttpContext>['handler'],
  ): DynamicRoute<HttpContext> => ({
    method,
    path,
    owner: 'core',
    handler,
    ...(method === 'GET' ? {} : { dryRun: true }),
  });
  return [
    route('GET', UC, (ctx) => list(ctx, 'spec.owner')),
    route('POST', UC, async (ctx) => {
      const post = body(ctx);
      const spec = { ...post.spec, owner: owner(ctx), published: false };
      delete (spec as { publishedAt?: string }).publishedAt;
      const created = await objects.create(
        posts,
        { ...post, apiVersion: CONTENT_API_VERSION, kind: KIND.Post, spec },
        writeOptionsOf(ctx),
      );
      ctx.reply.header('location', `${UC}/${created.object.metadata.name}`);
      return send(ctx, created.bytes, 201);
    }),
    route('GET', `${UC}/:name`, async (ctx, p) => send(ctx, await own(ctx, p.name!))),
    route('PUT', `${UC}/:name`, async (ctx, p) => {
      const current = await own(ctx, p.name!);
      const next = body(ctx);
      // The owner and the publish state are not the writer's to change here.
      const spec = {
        ...next.spec,
        owner: current.spec!.owner,
        published: current.spec!.published,
        publishedAt: current.spec!.publishedAt,
      };
      if (!spec.publishedAt) delete spec.publishedAt;
      const written = await objects.update(
        posts,
        p.name!,
        { ...next, apiVersion: current.apiVersion, kind: current.kind, spec },
        writeOptionsOf(ctx),
      );
      return send(ctx, written.bytes);
    }),
    route('DELETE', `${UC}/:name`, async (ctx, p) => {
      await own(ctx, p.name!);
      return send(ctx, (await objects.delete(posts, p.name!, writeOptionsOf(ctx))).bytes);
    }),
    route('PUT', `${UC}/:name/publish`, setPublished(true)),
    route('PUT', `${UC}/:name/unpublish`, setPublished(false)),
    route('GET', PUBLIC, (ctx) => list(ctx, 'spec.published')),
    route('GET', `${PUBLIC}/:name`, async (ctx, p) => {
      const post = await objects.find<Post>(posts, p.name!);
      if (!post?.spec?.published) throw notFound(`Post "${p.name}" not found`);
      return send(ctx, post);
    }),
  ];
}
