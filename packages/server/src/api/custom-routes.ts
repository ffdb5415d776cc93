import type { CustomRoute, RouteRequest, RouteResponse } from '@svc/plugin-api';
import type { Owner } from '../objects/owner.js';
import type { DynamicRoute } from './dynamic-router.js';
import { callerOf, type HttpContext, JSON_TYPE } from './http-context.js';

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
  return undefined;
}

export function groupOf(route: Pick<CustomRoute, 'apiVersion'>): string {
  return route.apiVersion.split('/')[0]!;
}

/** Turns a plugin's route declaration into router entries under `/apis/<group>/<version><path>`. */
export function customRoutes(owner: Owner, route: CustomRoute): DynamicRoute<HttpContext>[] {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const path = `/apis/${route.apiVersion}${route.path === '/' ? '' : route.path}`;
  return methods.map((method) => ({
    method,
    path,
    owner,
    handler: async ({ request, reply }: HttpContext, params) => {
      const { username } = callerOf(request);
      const routeRequest: RouteRequest = {
        method: request.method,
        path: request.target.path,
        params: params as Record<string, string>,
        query: request.target.query,
        headers: request.headers,
        body: request.body,
        ...(username === undefined ? {} : { user: { name: username } }),
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

function isRouteResponse(value: unknown): value is RouteResponse {
  return typeof value === 'object' && value !== null && (value as RouteResponse).svcRouteResponse === true;
}
