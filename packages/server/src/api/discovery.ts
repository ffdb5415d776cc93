import { notFound } from '@svc/plugin-api';
import type { ModelRegistry } from '../registry/model-registry.js';
import { aggregatedDiscovery, groupsOf, resourceList, versionsOf } from './discovery-documents.js';
import { type DynamicRoute, publicGet, type RouteHandler } from './dynamic-router.js';
import { type HttpContext, JSON_TYPE } from './http-context.js';
import { negotiateAs } from './media-types.js';

/** The aggregated discovery kinds a client may ask `/api` and `/apis` for, in Accept's `g`, `v`, `as` terms. */
const AGGREGATED = [
  { g: 'apidiscovery.k8s.io', v: 'v2', as: 'APIGroupDiscoveryList' },
  { g: 'apidiscovery.k8s.io', v: 'v2beta1', as: 'APIGroupDiscoveryList' },
] as const;

/** A resource served by a feature's own routes rather than by a model (Kubernetes' reviews), listed in discovery. */
export interface DiscoveredResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  verbs: readonly string[];
}

/**
 * Kubernetes' discovery, built from the models served, so a plugin's models appear and go as it starts and stops:
 * `/api` (APIVersions) and `/apis` (APIGroupList), or, when `Accept` asks for it as kubectl 1.30+ does, the aggregated
 * APIGroupDiscoveryList (answered with the content type naming its kind, as the API server does); `/apis/<group>`
 * (APIGroup) and `/api/<version>`, `/apis/<group>/<version>` (APIResourceList). The documents are built once and kept
 * until a model is registered or unregistered. The routes are public (readable without signing in, as the API
 * server's discovery is); a plugin's own route at one of these paths is not.
 */
export function discoveryRoutes(
  registry: ModelRegistry,
  /** The HTTPS listener's port, once it listens: the address Kubernetes clients are told to use. */
  httpsPort: () => number | undefined = () => undefined,
): {
  routes: DynamicRoute<HttpContext>[];
  discover: (resource: DiscoveredResource) => void;
} {
  const cache = new Map<string, Buffer | undefined>();
  registry.onChange(() => cache.clear());
  const extras: DiscoveredResource[] = [];
  const cached = (key: string, build: () => unknown): Buffer | undefined => {
    if (!cache.has(key)) {
      const document = build();
      cache.set(key, document === undefined ? undefined : Buffer.from(JSON.stringify(document)));
    }
    return cache.get(key);
  };
  const models = () => [
    ...registry.all().map((served) => served.model),
    ...extras.map((r) => ({ ...r, statusSubresource: false, shortNames: [], categories: [] })),
  ];
  // Bytes, so the content type goes out as set: for a string Fastify would quote its parameters and add a charset.
  const send = ({ reply }: HttpContext, body: Buffer, type = JSON_TYPE) =>
    reply.header('content-type', type).send(body);
  /** The aggregated document of `root` when the request asks for one; true once sent. */
  const sentAggregated = (ctx: HttpContext, root: 'core' | 'groups'): boolean => {
    const wanted = negotiateAs(ctx.request.headers.accept, AGGREGATED);
    if (!wanted) return false;
    const body = cached(`${root} ${wanted.v}`, () => aggregatedDiscovery(models(), root, wanted.v))!;
    send(ctx, body, `application/json;g=${wanted.g};v=${wanted.v};as=${wanted.as}`);
    return true;
  };
  const route = (path: string, handler: RouteHandler<HttpContext>) => publicGet(path, handler);
  const resources = (ctx: HttpContext, group: string, version: string) => {
    const body = cached(`resources ${group}/${version}`, () => resourceList(models(), group, version));
    if (body === undefined)
      throw notFound(`no resources are served in ${group === '' ? version : `${group}/${version}`}`);
    return send(ctx, body);
  };
  const routes = [
    route('/api', (ctx) => {
      if (sentAggregated(ctx, 'core')) return;
      // Not cached: it names the address the client reached, on the HTTPS port when that listener is on
      // (`svc kubeconfig` reads it to write the HTTPS URL of the server one signed in to over HTTP).
      const body = {
        kind: 'APIVersions',
        versions: versionsOf(models(), ''),
        serverAddressByClientCIDRs: [
          { clientCIDR: '0.0.0.0/0', serverAddress: serverAddress(ctx.request.headers.host ?? '', httpsPort()) },
        ],
      };
      return send(ctx, Buffer.from(JSON.stringify(body)));
    }),
    route('/api/:version', (ctx, p) => resources(ctx, '', p.version!)),
    route('/apis', (ctx) => {
      if (sentAggregated(ctx, 'groups')) return;
      return send(
        ctx,
        cached('groups', () => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: groupsOf(models()) }))!,
      );
    }),
    route('/apis/:group', (ctx, p) => {
      const group = groupsOf(models()).find((g) => g.name === p.group);
      if (!group) throw notFound(`no API group "${p.group}" is served`);
      return send(ctx, Buffer.from(JSON.stringify({ kind: 'APIGroup', apiVersion: 'v1', ...group })));
    }),
    route('/apis/:group/:version', (ctx, p) => resources(ctx, p.group!, p.version!)),
  ];
  return {
    routes,
    discover(resource) {
      extras.push(resource);
      cache.clear();
    },
  };
}

/** The Host the client reached, with the HTTPS port instead of its own when HTTPS is on. */
function serverAddress(host: string, httpsPort: number | undefined): string {
  if (httpsPort === undefined || host === '') return host;
  // `[::1]:8090` or `localhost:8090` or `localhost`: the port is what follows the last colon after any bracket.
  const hostname = host.replace(/:\d*$/, '');
  return `${hostname}:${httpsPort}`;
}
