import type { IncomingHttpHeaders } from 'node:http';
import { type CustomRoute, invalid, type RouteRequest, type RouteResponse } from '@svc/plugin-api';
import type { Principal } from '../authz/principal.js';
import type { Owner } from '../objects/owner.js';
import { compileBodySchema, type ObjectValidator } from '../objects/schema.js';
import type { DynamicRoute, RouteDoc } from './dynamic-router.js';
import { callerOf, type HttpContext, JSON_TYPE } from './http-context.js';
import { dryRunRequested } from './write-options.js';

const API_VERSION =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)\/(v[0-9]+((alpha|beta)[0-9]+)?)$/;

/** Why a custom route cannot be mounted, or undefined when it can. */
export function customRouteProblem(route: Partial<CustomRoute>): string | undefined {
  if (typeof route.apiVersion !== 'string' || route.apiVersion === '') {
    return 'it declares no apiVersion (<group>/<version>), so it is not mounted';
  }
  if (!API_VERSION.test(route.apiVersion))
    return `apiVersion "${route.apiVersion}" is not of the form <group>/<version>`;
  if (typeof route.path !== 'string' || !route.path.startsWith('/')) return `path "${route.path}" must start with "/"`;
  if (typeof route.handler !== 'function') return 'it has no handler function';
  const { schema } = route;
  if (schema !== undefined && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
    return 'schema must be an object with optional body and response JSON Schemas';
  }
  try {
    if (schema?.body !== undefined) compileBodySchema(schema.body, 'schema.body');
    if (schema?.response !== undefined) compileBodySchema(schema.response, 'schema.response');
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

export function groupOf(route: Pick<CustomRoute, 'apiVersion'>): string {
  return route.apiVersion.split('/')[0]!;
}

/** Every role a caller holds for a request (the gate's expansion), for the route's `user.roles`. */
export type CallerRoles = (caller: Principal) => readonly string[];

/**
 * Headers that carry the caller's credentials. A plugin's handler is told who calls (`user`); it never gets what would
 * let it act as them elsewhere, or replay their session.
 */
const CREDENTIAL_HEADERS = new Set(['cookie', 'authorization', 'proxy-authorization', 'x-xsrf-token']);

/**
 * Turns a plugin's route declaration into router entries under `/apis/<group>/<version><path>`. The handler gets the
 * request without credential headers and the caller's name and roles (`callerRoles`; none when it is not given).
 */
export function customRoutes(
  owner: Owner,
  route: CustomRoute,
  callerRoles: CallerRoles = () => [],
): DynamicRoute<HttpContext>[] {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const path = `/apis/${route.apiVersion}${route.path === '/' ? '' : route.path}`;
  const checkBody = route.schema?.body === undefined ? undefined : compileBodySchema(route.schema.body, 'schema.body');
  const doc = docOf(route);
  // Only a route that says its handler honours dry runs gets them; the kernel refuses them on any other (dry-run.ts).
  const honoursDryRun = route.dryRun === true;
  return methods.map((method) => ({
    method,
    path,
    owner,
    ...(doc ? { doc } : {}),
    ...(honoursDryRun ? { dryRun: true } : {}),
    handler: async (ctx: HttpContext, params) => {
      const { request, reply } = ctx;
      if (checkBody && BODY_METHODS.has(request.method)) refuseInvalidBody(checkBody, request.body, method, path);
      const caller = callerOf(request);
      const routeRequest: RouteRequest = {
        method: request.method,
        path: request.target.path,
        params: params as Record<string, string>,
        query: request.target.query,
        headers: withoutCredentials(request.headers),
        body: request.body,
        dryRun: honoursDryRun && request.method !== 'GET' && request.method !== 'HEAD' && dryRunRequested(ctx),
        ...(caller.username === undefined ? {} : { user: { name: caller.username, roles: callerRoles(caller) } }),
      };
      const result = await route.handler(routeRequest);
      if (isRouteResponse(result)) {
        if (result.headers) reply.headers(result.headers);
        reply.code(result.status);
        return result.body === undefined ? reply.send() : reply.type(JSON_TYPE).send(JSON.stringify(result.body));
      }
      return reply.type(JSON_TYPE).send(JSON.stringify(result ?? null));
    },
  }));
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function withoutCredentials(headers: IncomingHttpHeaders): RouteRequest['headers'] {
  const kept: RouteRequest['headers'] = {};
  for (const [name, value] of Object.entries(headers)) if (!CREDENTIAL_HEADERS.has(name)) kept[name] = value;
  return kept;
}

/** A 400 naming every path of the body that breaks the route's declared schema; nothing when it matches. */
function refuseInvalidBody(check: ObjectValidator, body: unknown, method: string, path: string): void {
  const errors = check(body);
  if (errors.length === 0) return;
  const where = errors.map((e) => `${e.path || '(the body)'} ${e.message}`).join('; ');
  throw invalid(`the body of ${method} ${path} does not match its schema: ${where}`, errors);
}

function docOf(route: CustomRoute): RouteDoc | undefined {
  const doc: RouteDoc = {
    ...(route.summary === undefined ? {} : { summary: route.summary }),
    ...(route.description === undefined ? {} : { description: route.description }),
    ...(route.schema?.body === undefined ? {} : { requestBody: route.schema.body }),
    ...(route.schema?.response === undefined ? {} : { response: route.schema.response }),
  };
  return Object.keys(doc).length === 0 ? undefined : doc;
}

function isRouteResponse(value: unknown): value is RouteResponse {
  return typeof value === 'object' && value !== null && (value as RouteResponse).svcRouteResponse === true;
}
