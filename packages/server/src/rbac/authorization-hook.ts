import { forbidden } from '@svc/plugin-api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DynamicRouter } from '../api/dynamic-router.js';
import type { HttpContext } from '../api/http-context.js';
import type { Principal } from '../authz/principal.js';
import { classifyRequest, type RequestInfo } from '../authz/request-info.js';
import type { Attributes } from '../authz/rules.js';
import { pluginOf } from '../objects/owner.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { DecisionCache } from './decision-cache.js';
import type { RoleService } from './role-service.js';

export interface AuthorizationHookDeps {
  authenticate: (request: FastifyRequest) => Promise<Principal>;
  /** The 401 to answer an anonymous caller with, carrying the `WWW-Authenticate` challenges authentication offers. */
  challenge: (detail: string) => Error;
  roles: RoleService;
  registry: ModelRegistry;
  router: DynamicRouter<HttpContext>;
  /** The one cache of the gate's decisions (decision-cache.ts). */
  decisions: DecisionCache;
}

/**
 * The request chain's one gate, run in `onRequest` (before the body is read): classify the request from method and
 * URL alone, authenticate, then authorize against the caller's expanded roles. Deny by default: anonymous callers that
 * no rule allows get 401, authenticated ones 403.
 */
export function createAuthorizationHook({
  authenticate,
  challenge,
  roles,
  registry,
  router,
  decisions,
}: AuthorizationHookDeps) {
  const attributesOf = createAttributeResolver(registry, router);
  let modelChanges = 0;
  registry.onChange(() => void modelChanges++);

  return async function authorizeRequest(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const isWebSocket = request.headers.upgrade?.toLowerCase() === 'websocket';
    const principal = await authenticate(request);
    request.principal = principal;
    const impersonation = impersonationHeader(request.headers);
    if (impersonation !== undefined) {
      // Refused, never ignored: acting as the caller while they asked to act as someone else would mislead them.
      const detail = `impersonation (the ${impersonation} header, kubectl --as) is not supported: svc acts only as the caller who signed in`;
      if (!principal.username) throw challenge(detail);
      throw forbidden(detail);
    }
    // Only a PATCH may need a second verb (server-side apply creating the object); not cached, it is rare.
    if (request.method === 'PATCH') {
      request.authorizeAlso = (verb) => {
        const info = request.requestInfo ?? classifyRequest({ method: request.method, target: request.target });
        return roles.authorize(principal, attributesOf({ ...info, verb }, request.method, request.target.routePath));
      };
    }
    // The URL is the canonical form of the parsed target (api/targets.ts), so equal lines are equal requests.
    const line = `${request.method} ${isWebSocket ? 'ws:' : ''}${request.url}`;
    const entry = decisions.decide(roles.expandFor(principal), line, modelChanges + router.version, () => {
      const { target } = request;
      const info = classifyRequest({ method: request.method, target, isWebSocket });
      const routed = router.find(request.method === 'HEAD' ? 'GET' : request.method, target.routePath)?.route;
      if (!info.isResourceRequest && routed?.owner === 'core' && routed.public === true) {
        return { verb: info.verb, info, decision: { allowed: true, reason: 'discovery is readable by everyone' } };
      }
      return {
        verb: info.verb,
        info,
        decision: roles.authorize(principal, attributesOf(info, request.method, target.routePath)),
      };
    });
    request.requestInfo = entry.info;
    const { decision, verb } = entry;
    // Kept for the request's audit event (its authorization.k8s.io annotations).
    request.decision = decision;
    if (decision.allowed) return;
    if (!principal.username) throw challenge(`sign in to ${verb} this: ${decision.reason}`);
    throw forbidden(`user "${principal.username}" may not ${verb} this: ${decision.reason}${tokenNote(principal)}`);
  };
}

/** A token acts with its own roles only: a 403 for it names them, since the user's other roles do not count. */
function tokenNote(principal: Principal): string {
  if (principal.via !== 'token') return '';
  const roles = principal.restrictedToRoles ?? [];
  const held = roles.length > 0 ? `the roles ${roles.map((r) => `"${r}"`).join(', ')}` : 'no roles';
  return ` (the token${principal.tokenName ? ` "${principal.tokenName}"` : ''} acts with ${held} only)`;
}

/**
 * Completes a request's classification with the plugin that owns what it reaches (its model or its custom route), so
 * rules of the seed's form `<plugin_name>/<plural>` can match.
 */
export function createAttributeResolver(registry: ModelRegistry, router: DynamicRouter<HttpContext>) {
  return (info: RequestInfo, method: string, routePath: string): Attributes => {
    if (!info.isResourceRequest) return info;
    const routed = method === 'HEAD' ? 'GET' : method;
    const owner =
      registry.findByRoute(info.apiGroup, info.apiVersion, info.resource)?.owner ??
      router.find(routed, routePath)?.route.owner;
    const plugin = owner === undefined ? undefined : pluginOf(owner);
    return plugin === undefined ? info : { ...info, plugin };
  };
}

/** The first Kubernetes impersonation header a request carries (Impersonate-User, -Group, -Uid, -Extra-*), if any. */
function impersonationHeader(headers: FastifyRequest['headers']): string | undefined {
  for (const name in headers) {
    if (name.startsWith('impersonate-')) return name.replace(/(^|-)([a-z])/g, (_, dash, c) => dash + c.toUpperCase());
  }
  return undefined;
}
