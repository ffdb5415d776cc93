import { apisPath, badRequest, USER_SECURITY_GROUP } from '@svc/plugin-api';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { callerOf, type HttpContext, JSON_TYPE } from '../api/http-context.js';
import { sendList } from '../api/list-envelope.js';
import type { Principal } from '../authz/principal.js';
import type { ObjectService } from '../registry/object-service.js';
import type { Authenticator } from './authenticator.js';
import type { PersonalAccessTokens } from './tokens.js';

const BASE = `${apisPath(USER_SECURITY_GROUP)}/personalaccesstokens`;

/**
 * A user's own personal access tokens (docs/api.md "Security"): create (the secret is in the response, once), list
 * and get (never the secret), revoke, delete. Another user's token is not found here; the generated API of
 * `security.svc.run/v1alpha1/personalaccesstokens` is where an administrator sees them all.
 */
export function tokenRoutes(deps: {
  authenticator: Authenticator;
  objects: ObjectService;
  tokens: PersonalAccessTokens;
}): DynamicRoute<HttpContext>[] {
  const { tokens, objects } = deps;
  const caller = async (ctx: HttpContext): Promise<Principal> => {
    const principal = callerOf(ctx.request);
    if (!principal.username) throw deps.authenticator.challenge('sign in to manage your personal access tokens');
    return principal;
  };
  const sendJson = (ctx: HttpContext, body: Buffer | string, status = 200) =>
    ctx.reply.code(status).type(JSON_TYPE).send(body);
  const route = (
    method: string,
    path: string,
    handler: DynamicRoute<HttpContext>['handler'],
  ): DynamicRoute<HttpContext> => ({
    method,
    path: `${BASE}${path}`,
    owner: 'core',
    handler,
  });

  return [
    route('POST', '', async (ctx) => {
      const { object } = await tokens.create(await caller(ctx), ctx.request.body);
      ctx.reply.header('location', `${BASE}/${object.metadata.name}`);
      ctx.reply.header('cache-control', 'no-store');
      return sendJson(ctx, JSON.stringify(object), 201);
    }),
    route('GET', '', async (ctx) => {
      const principal = await caller(ctx);
      const query = ctx.request.target.query;
      if (query.watch !== undefined) throw badRequest('watching personal access tokens is not supported here');
      const own = { field: 'spec.username', operator: 'in' as const, values: [principal.username!] };
      return sendList(ctx, objects, tokens.served, (list) => ({ ...list, fields: [...list.fields, own] }));
    }),
    route('GET', '/:name', async (ctx, p) =>
      sendJson(ctx, JSON.stringify(await tokens.getOwn(await caller(ctx), p.name!))),
    ),
    route('PUT', '/:name/revocation', async (ctx, p) => sendJson(ctx, await tokens.revoke(await caller(ctx), p.name!))),
    route('DELETE', '/:name', async (ctx, p) => sendJson(ctx, await tokens.remove(await caller(ctx), p.name!))),
  ];
}
