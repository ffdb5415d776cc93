import {
  type AccessReview,
  badRequest,
  CONSOLE_API,
  type EffectivePermissions,
  type FieldError,
  HIDDEN_LABEL,
  invalid,
  notFound,
  type UserPermissions,
} from '@svc/plugin-api';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { actorOf, callerOf, type HttpContext, JSON_TYPE } from '../api/http-context.js';
import type { Principal } from '../authz/principal.js';
import { classifyRequest } from '../authz/request-info.js';
import { parseRequestTarget } from '../authz/request-target.js';
import type { ExpandedRoles } from '../authz/roles.js';
import type { createAttributeResolver } from './authorization-hook.js';
import type { RoleService } from './role-service.js';
import { uiPermissionsOf } from './ui-permissions.js';
import type { SetUserRoles } from './user-roles.js';

const BASE = CONSOLE_API;

export interface PermissionRouteDeps {
  roles: RoleService;
  setUserRoles: SetUserRoles;
  /** Whether a user exists (the user model belongs to authentication). */
  userExists: (username: string) => Promise<boolean>;
  /** The username a User object's user acts as (an identity provider's user's is not the object's name). */
  usernameOf: (objectName: string) => string;
  /** Ends a user's sessions, so new roles take effect at once. */
  endSessionsOf: (username: string) => Promise<void>;
  attributesOf: ReturnType<typeof createAttributeResolver>;
  /** Whether roles expanded thus may list at least one model (model-access-routes.ts): the resource browser. */
  mayBrowseModels: (expanded: ExpandedRoles) => boolean;
}

/**
 * The console's permission endpoints (docs/api.md "Security"): what a user holds, setting a user's roles, what a set of
 * roles would amount to (the role picker's preview, from the same expansion the gate uses), and access reviews that
 * say whether a request would be allowed and by which role and rule.
 */
export function permissionRoutes(deps: PermissionRouteDeps): DynamicRoute<HttpContext>[] {
  const { roles } = deps;
  const caller = (ctx: HttpContext) => callerOf(ctx.request).username;
  const subject = async (ctx: HttpContext, name: string | undefined): Promise<string> => {
    const username = name === '-' ? caller(ctx) : name && deps.usernameOf(name);
    if (!username) throw badRequest('"-" means the signed-in user; sign in first');
    if (!(await deps.userExists(username))) throw notFound(`user "${username}" not found`);
    return username;
  };

  /** `groups`: those the caller's credential carries (an OIDC sign-in's), when the caller asks about themselves. */
  const permissionsOf = (username: string, groups?: readonly string[]): UserPermissions => {
    const principal: Principal = groups ? { username, via: 'session', groups } : { username, via: 'session' };
    return {
      username,
      roles: roles.boundRoles(username),
      ...describe(roles, roles.expandFor(principal), deps.mayBrowseModels),
    };
  };

  const send = (ctx: HttpContext, body: unknown, status = 200) =>
    ctx.reply.code(status).type(JSON_TYPE).send(JSON.stringify(body));

  return [
    {
      method: 'GET',
      path: `${BASE}/users/:name/permissions`,
      owner: 'core',
      handler: async (ctx, p) =>
        send(ctx, permissionsOf(await subject(ctx, p.name), p.name === '-' ? callerOf(ctx.request).groups : undefined)),
    },
    {
      method: 'POST',
      path: `${BASE}/users/:name/permissions`,
      owner: 'core',
      doc: {
        summary: "Set a user's roles (ends their sessions)",
        requestBody: {
          type: 'object',
          required: ['roles'],
          properties: { roles: { type: 'array', items: { type: 'string' } } },
        },
      },
      handler: async (ctx, p) => {
        const username = await subject(ctx, p.name);
        const body = ctx.request.body as { roles?: unknown } | undefined;
        if (!Array.isArray(body?.roles) || !body.roles.every((r) => typeof r === 'string')) {
          throw badRequest('the body must be {"roles": ["<role name>", …]}');
        }
        await deps.setUserRoles(actorOf(ctx), username, body.roles as string[]);
        await deps.endSessionsOf(username);
        return send(ctx, permissionsOf(username));
      },
    },
    {
      method: 'POST',
      path: `${BASE}/effectivepermissions`,
      // Answers a question and writes nothing, so a dry run is the same request.
      dryRun: true,
      owner: 'core',
      doc: {
        summary: 'What a set of roles amounts to: every role reached and how, the rules and the UI permissions',
        requestBody: {
          type: 'object',
          required: ['roles'],
          properties: { roles: { type: 'array', items: { type: 'string' } } },
        },
      },
      handler: async (ctx) => {
        const body = ctx.request.body as { roles?: unknown } | undefined;
        if (!Array.isArray(body?.roles) || !body.roles.every((r) => typeof r === 'string')) {
          throw badRequest('the body must be {"roles": ["<role name>", …]}');
        }
        const wanted = body.roles as string[];
        const errors: FieldError[] = [];
        wanted.forEach((name, i) => {
          if (!roles.role(name)) errors.push({ path: `/roles/${i}`, message: `no role is named "${name}"` });
        });
        if (errors.length > 0) throw invalid(errors.map((e) => e.message).join('; '), errors);
        const requested = [...new Set(wanted)].sort();
        const answer: EffectivePermissions = {
          roles: requested,
          ...describe(roles, roles.expand(requested), deps.mayBrowseModels),
        };
        return send(ctx, answer);
      },
    },
    {
      method: 'POST',
      path: `${BASE}/accessreviews`,
      // Answers a question and writes nothing, so a dry run is the same request.
      dryRun: true,
      owner: 'core',
      doc: {
        summary: 'Whether a user (or you) may send a request, and why',
        requestBody: {
          type: 'object',
          required: ['method', 'path'],
          properties: { method: { type: 'string' }, path: { type: 'string' }, user: { type: 'string' } },
        },
      },
      handler: async (ctx) => {
        const body = ctx.request.body as { method?: unknown; path?: unknown; user?: unknown } | undefined;
        if (typeof body?.method !== 'string' || typeof body.path !== 'string' || !body.path.startsWith('/')) {
          throw badRequest('the body must be {"method": "GET", "path": "/apis/…", "user"?: "<name>"}');
        }
        const named = typeof body.user === 'string' ? await subject(ctx, body.user) : undefined;
        // The caller as they are (an OIDC caller with the token's groups); a named user as a session of theirs.
        const principal: Principal = named ? { username: named, via: 'session' } : callerOf(ctx.request);
        const username = principal.username;
        // Read exactly as the gate reads a request target, so the answer is the gate's answer.
        const parsed = parseRequestTarget(body.path);
        if (!parsed.ok) throw badRequest(`path: ${parsed.problem}`);
        const method = body.method.toUpperCase();
        const info = classifyRequest({ method, target: parsed.target });
        const decision = roles.authorize(principal, deps.attributesOf(info, method, parsed.target.routePath));
        const answer: AccessReview = {
          user: username ?? null,
          allowed: decision.allowed,
          reason: decision.reason,
          role: decision.role,
          rule: decision.ruleIndex,
        };
        return send(ctx, answer);
      },
    },
  ];
}

/**
 * What an expansion amounts to, as the console shows it: the roles reached that are not hidden, the UI permissions,
 * every rule with the role it came from, and how each role not started from was reached (a dependency of, or
 * aggregated into, another).
 */
function describe(
  roles: RoleService,
  expanded: ExpandedRoles,
  mayBrowseModels: (expanded: ExpandedRoles) => boolean,
): Omit<EffectivePermissions, 'roles'> {
  const visible = [...expanded.roleNames].filter((name) => roles.role(name)?.labels[HIDDEN_LABEL] !== 'true').sort();
  return {
    permissions: visible,
    uiPermissions: uiPermissionsOf(expanded, mayBrowseModels),
    rules: expanded.rules.map(({ role, rule }) => ({ role, ...rule })),
    reachedBy: Object.fromEntries(expanded.reachedBy),
  };
}
