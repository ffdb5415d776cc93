import { notFound } from '@svc/plugin-api';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { DynamicRoute } from './dynamic-router.js';
import { type HttpContext, JSON_TYPE } from './http-context.js';

/**
 * Kubernetes' legacy discovery documents, built from the models served at the moment of the request, so a plugin's
 * models appear and go as it starts and stops: `/api` (APIVersions), `/apis` (APIGroupList), `/apis/<group>`
 * (APIGroup) and `/api/<version>`, `/apis/<group>/<version>` (APIResourceList). The routes are public (readable
 * without signing in, as the API server's discovery is); a plugin's own route at one of these paths is not.
 */
export function discoveryRoutes(registry: ModelRegistry): DynamicRoute<HttpContext>[] {
  const send = ({ reply }: HttpContext, body: unknown) => reply.type(JSON_TYPE).send(JSON.stringify(body));
  const route = (path: string, handler: DynamicRoute<HttpContext>['handler']): DynamicRoute<HttpContext> => ({
    method: 'GET',
    path,
    owner: 'core',
    public: true,
    handler,
  });
  return [
    route('/api', (ctx) =>
      send(ctx, {
        kind: 'APIVersions',
        versions: versionsOf(registry.all(), ''),
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: ctx.request.headers.host ?? '' }],
      }),
    ),
    route('/api/:version', (ctx, p) => send(ctx, resourceList(registry.all(), '', p.version!))),
    route('/apis', (ctx) => send(ctx, { kind: 'APIGroupList', apiVersion: 'v1', groups: groupsOf(registry.all()) })),
    route('/apis/:group', (ctx, p) => {
      const group = groupsOf(registry.all()).find((g) => g.name === p.group);
      if (!group) throw notFound(`no API group "${p.group}" is served`);
      return send(ctx, { kind: 'APIGroup', apiVersion: 'v1', ...group });
    }),
    route('/apis/:group/:version', (ctx, p) => send(ctx, resourceList(registry.all(), p.group!, p.version!))),
  ];
}

/** The API groups served, each with its versions (the first, in name order, preferred). Pure. */
function groupsOf(models: readonly ServedModel[]) {
  const names = [...new Set(models.map((s) => s.model.group).filter((g) => g !== ''))].sort();
  return names.map((name) => {
    const versions = versionsOf(models, name).map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions, preferredVersion: versions[0]! };
  });
}

function versionsOf(models: readonly ServedModel[], group: string): string[] {
  return [...new Set(models.filter((s) => s.model.group === group).map((s) => s.model.version))].sort();
}

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];

/** The APIResourceList of one group version; a 404 when nothing is served there. Pure but for the error. */
function resourceList(models: readonly ServedModel[], group: string, version: string) {
  const served = models
    .filter((s) => s.model.group === group && s.model.version === version)
    .sort((a, b) => a.model.plural.localeCompare(b.model.plural));
  const groupVersion = group === '' ? version : `${group}/${version}`;
  if (served.length === 0) throw notFound(`no resources are served in ${groupVersion}`);
  const resources = served.flatMap(({ model }) => {
    const resource = {
      name: model.plural,
      singularName: model.singular,
      namespaced: false,
      kind: model.kind,
      verbs: VERBS,
    };
    if (!model.statusSubresource) return [resource];
    const status = {
      name: `${model.plural}/status`,
      singularName: '',
      namespaced: false,
      kind: model.kind,
      verbs: STATUS_VERBS,
    };
    return [resource, status];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}
