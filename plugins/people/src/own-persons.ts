import {
  badRequest,
  type CustomRoute,
  type PluginContext,
  type RouteRequest,
  respond,
  unauthorized,
} from '@svc/plugin-api';
import { type Person, type PersonSpec, personModel } from './person.js';

/** The label naming the user a person belongs to, set by the personal-center routes below. */
export const OWNER_LABEL = 'people.svc.run/owner';
const UC = 'uc.api.people.svc.run/v1alpha1';

/**
 * The personal center's persons (the seed's `uc.api.<group>` convention): each signed-in user lists and creates the
 * persons that belong to them. Who calls comes from `request.user`, which the host fills from the principal it
 * authorized; the owner label is set here, never taken from the body.
 */
export function ownPersonRoutes(ctx: Pick<PluginContext, 'client'>): CustomRoute[] {
  return [
    {
      apiVersion: UC,
      method: 'GET',
      path: '/persons',
      async handler(request) {
        const owner = ownerOf(request);
        return ctx.client.list<Person>(personModel, {
          labelSelector: `${OWNER_LABEL}=${owner}`,
          sort: 'metadata.name,asc',
        });
      },
    },
    {
      apiVersion: UC,
      method: 'POST',
      path: '/persons',
      async handler(request) {
        const owner = ownerOf(request);
        const body = request.body as { metadata?: { name?: unknown }; spec?: PersonSpec } | undefined;
        if (typeof body?.metadata?.name !== 'string' || typeof body.spec !== 'object') {
          throw badRequest('send {"metadata": {"name": "<name>"}, "spec": {…}}');
        }
        const created = await ctx.client.create<Person>({
          apiVersion: 'people.svc.run/v1alpha1',
          kind: 'Person',
          metadata: { name: body.metadata.name, labels: { [OWNER_LABEL]: owner } },
          spec: body.spec,
        });
        return respond(201, created);
      },
    },
  ];
}

function ownerOf(request: RouteRequest): string {
  if (!request.user) throw unauthorized('sign in to see your own persons');
  return request.user.name;
}
