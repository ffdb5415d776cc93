import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { JsonSchema } from './models.js';

/**
 * Custom APIs a plugin adds. The seed's convention: a route declares `<group>/<version>` and is served under
 * `/apis/<group>/<version>/<path>`; a route without that declaration is not mounted.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRequest<Body = unknown> {
  method: string;
  /** The full request path, for example `/apis/console.api.people.svc.run/v1alpha1/stats`. */
  path: string;
  /** Named path parameters (`:name` segments of the route's path). */
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  /**
   * The request's headers, without the caller's credentials: `cookie`, `authorization`, `proxy-authorization` and
   * `x-xsrf-token` never reach a plugin. Who calls is `user`.
   */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined; typed from the body schema when the route is made with `defineRoute`. */
  body: Body;
  /** The signed-in caller the gate authorized (by session, token or Basic); undefined for an anonymous caller. */
  user?: RouteCaller;
  /**
   * The client asked for a dry run (`?dryRun=All`, or a DELETE body's `"dryRun": ["All"]`): validate and answer as the
   * real request would, and change nothing. Only ever true on a route that declares `dryRun: true`; svc refuses a dry
   * run on any other write with a 400 before its handler runs.
   */
  dryRun: boolean;
}

/** Who calls a custom route, as the gate authorized them. */
export interface RouteCaller {
  /** The username. */
  name: string;
  /**
   * Every role the caller holds for this request, sorted: their bound roles (only those a token carries, when it is a
   * token) with everything those reach through dependencies and aggregation, `anonymous` and `authenticated`
   * included. A super administrator's include `super-role`.
   */
  roles: readonly string[];
}

/** Returned by a handler that needs a status other than 200 or extra headers. */
export interface RouteResponse {
  svcRouteResponse: true;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function respond(status: number, body?: unknown, headers?: Record<string, string>): RouteResponse {
  return { svcRouteResponse: true, status, body, headers };
}

/**
 * JSON Schemas (draft 2020-12) of a custom route's bodies. Both are optional and both appear in the route's OpenAPI
 * document; a request body that does not match `body` is refused with a 400 naming each offending path before the
 * handler runs. A schema that does not compile keeps the route from being mounted (a warning says why).
 */
export interface RouteSchemas {
  /** The request body (for POST, PUT and PATCH). */
  body?: JsonSchema;
  /** The success response body (documentation only: responses are not checked). */
  response?: JsonSchema;
}

export interface CustomRoute {
  /** `<group>/<version>`, for example `console.api.people.svc.run/v1alpha1`. Required. */
  apiVersion: string;
  method: HttpMethod | HttpMethod[];
  /** Path below `/apis/<group>/<version>`, for example `/stats` or `/persons/:name/greeting`. */
  path: string;
  /** Returns the JSON body (status 200), a `respond(...)` value, or throws an ApiError. */
  handler: (request: RouteRequest) => unknown | Promise<unknown>;
  /** One line for the OpenAPI document and the API reference at `/docs`. */
  summary?: string;
  /** Longer prose for the same (CommonMark). */
  description?: string;
  /** Request and response body schemas: documented, and the request body checked (see RouteSchemas). */
  schema?: RouteSchemas;
  /**
   * The handler honours dry runs: when `request.dryRun` is true it validates and answers as it would, changing
   * nothing. Without it, a write (POST, PUT, PATCH, DELETE) asking for a dry run is refused with a 400 before the
   * handler runs, so a client that meant to try never changes anything for real.
   */
  dryRun?: boolean;
}

/**
 * The TypeScript type a JSON Schema declared `as const` describes (json-schema-to-ts): a model's spec type derived
 * from its schema, so the two cannot drift. Types only.
 */
export type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** The request body's type a body schema describes; unknown without one. */
export type RouteBody<Schema> = Schema extends JSONSchema ? FromSchema<Schema> : unknown;

/** A custom route whose handler's `request.body` has the type of its body schema (see `defineRoute`). */
export interface TypedRoute<BodySchema> extends Omit<CustomRoute, 'handler' | 'schema'> {
  schema?: { body?: BodySchema; response?: JsonSchema };
  handler: (request: RouteRequest<RouteBody<BodySchema>>) => unknown | Promise<unknown>;
}

/**
 * Declares a custom route with its body's type derived from its body schema (json-schema-to-ts, types only), so the
 * schema is written once: declare the schema `as const` and `request.body` is its type in the handler. The type holds
 * at run time because svc refuses a body that does not match the schema (400) before the handler runs.
 */
export function defineRoute<const BodySchema extends JSONSchema | undefined = undefined>(
  route: TypedRoute<BodySchema>,
): CustomRoute {
  // Only the handler's parameter type differs from CustomRoute's, and the host checks the body before calling it.
  return route as CustomRoute;
}
