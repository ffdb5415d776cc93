import type { JsonSchema } from '@svc/plugin-api';
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import type { Owner } from '../objects/owner.js';
import type { ProtobufMessage } from './kubernetes-protobuf.js';

export type RouteHandler<Ctx> = (
  context: Ctx,
  params: Record<string, string | undefined>,
) => Promise<unknown> | unknown;

/** What the OpenAPI documents say of a route beyond its method and path (openapi/); all optional. */
export interface RouteDoc {
  summary?: string;
  description?: string;
  /** JSON Schema (2020-12) of the request body. */
  requestBody?: JsonSchema;
  /** JSON Schema (2020-12) of the success response body. */
  response?: JsonSchema;
  /** The success status, when not 200 (201 for a create). */
  status?: number;
  /** 4xx answers beyond those the route's shape implies (a 409 of a conflict, a 429 of a throttle). */
  errors?: readonly number[];
}

export interface DynamicRoute<Ctx> {
  method: string;
  path: string;
  /** Who added the route; removing an owner removes all its routes. */
  owner: Owner;
  handler: RouteHandler<Ctx>;
  /** The handler also serves WebSocket upgrades of this path (a watch); other routes refuse them. */
  websocket?: boolean;
  /**
   * Readable by everyone, signed in or not, whatever the roles (discovery). Only the service's own code sets it; a
   * plugin's routes never carry it.
   */
  public?: boolean;
  /** For the OpenAPI documents; a route without it is still listed, with its method, path and parameters. */
  doc?: RouteDoc;
  /**
   * The handler honours `dryRun=All` (validates, admits and answers, writes nothing: writeOptionsOf reads it). A write
   * asking for a dry run on a route without it is refused with a 400 before the handler runs (dry-run.ts).
   */
  dryRun?: boolean;
  /**
   * The route reads server-side apply's `application/apply-patch+yaml` (the generated PATCH of an object); every
   * other route refuses that media type before reading the body (api/apply-body.ts). Only the service sets it.
   */
  acceptsApply?: boolean;
  /**
   * The message the route reads from a Kubernetes protobuf body (api/kubernetes-protobuf.ts), handed to the handler as
   * the same JSON object; every other route refuses that media type before reading the body. Only the service sets it.
   */
  protobuf?: ProtobufMessage;
}

/** A GET route of the service's own that everyone may read (discovery, OpenAPI, the console's files). */
export function publicGet<Ctx>(path: string, handler: RouteHandler<Ctx>, doc?: RouteDoc): DynamicRoute<Ctx> {
  const route: DynamicRoute<Ctx> = { method: 'GET', path, owner: 'core', public: true, handler };
  if (doc) route.doc = doc;
  return route;
}

const options = { ignoreTrailingSlash: true, maxParamLength: 1000, caseSensitive: true };

/**
 * Routes that change while the server runs. Fastify refuses new routes once listening, so one catch-all route
 * dispatches into this. The route list is the source of truth; the find-my-way tree is derived from it, rebuilt and
 * swapped on every change (cheaper than many `off()` calls, and a lookup never sees a half-changed tree).
 */
export class DynamicRouter<Ctx> {
  private routes: DynamicRoute<Ctx>[] = [];
  private tree = FindMyWay<HTTPVersion.V1>(options);
  private changes = 0;

  /** Grows with every change of the routes: caches of what a path reaches compare it. */
  get version(): number {
    return this.changes;
  }

  /** Adds routes all at once: if one clashes with an existing route, none is added. */
  add(routes: DynamicRoute<Ctx>[]): void {
    const next = FindMyWay<HTTPVersion.V1>(options);
    for (const route of [...this.routes, ...routes]) mount(next, route);
    this.routes = [...this.routes, ...routes];
    this.tree = next;
    this.changes++;
  }

  removeOwner(owner: Owner): number {
    const kept = this.routes.filter((r) => r.owner !== owner);
    const removed = this.routes.length - kept.length;
    if (removed === 0) return 0;
    const next = FindMyWay<HTTPVersion.V1>(options);
    for (const route of kept) mount(next, route);
    this.routes = kept;
    this.tree = next;
    this.changes++;
    return removed;
  }

  find(method: string, path: string): { route: DynamicRoute<Ctx>; params: Record<string, string | undefined> } | null {
    const found = this.tree.find(method as 'GET', path);
    if (!found) return null;
    return { route: found.store as DynamicRoute<Ctx>, params: found.params };
  }

  list(): readonly DynamicRoute<Ctx>[] {
    return this.routes;
  }
}

function mount<Ctx>(tree: ReturnType<typeof FindMyWay<HTTPVersion.V1>>, route: DynamicRoute<Ctx>) {
  try {
    tree.on(route.method as 'GET', route.path, () => undefined, route);
  } catch (error) {
    throw new Error(
      `route ${route.method} ${route.path} of ${route.owner} clashes with an existing route: ${(error as Error).message}`,
    );
  }
}
