import {
  type CustomRoute,
  defineRoute,
  type PluginContext,
  type RouteRequest,
  respond,
  unauthorized,
} from '@svc/plugin-api';
import { type Person, type PersonSpec, personModel, personSpecSchema, personStatusSchema } from './person.js';
import { OWNER_LABEL, PEOPLE_API_VERSION, PERSON_KIND, USER_API_VERSION } from './vocabulary.js';

/**
 * The personal center's persons (the seed's `uc.api.<group>` convention): each signed-in user lists and creates the
 * persons that belong to them. Who calls comes from `request.user`, which the host fills from the principal it
 * authorized; the owner label is set here, never taken from the body.
 */
export function ownPersonRoutes(ctx: Pick<PluginContext, 'client'>): CustomRoute[] {
  return [
    {
      apiVersion: USER_API_VERSION,
      method: 'GET',
      path: '/persons',
      summary: 'The persons that belong to you',
      schema: { response: OWN_PERSON_LIST },
      async handler(request) {
        const owner = ownerOf(request);
        return ctx.client.list<Person>(personModel, {
          labelSelector: `${OWNER_LABEL}=${owner}`,
          sort: 'metadata.name,asc',
        });
      },
    },
    defineRoute({
      apiVersion: USER_API_VERSION,
      method: 'POST',
      path: '/persons',
      summary: 'Create a person that belongs to you',
      // The host refuses a body that does not match (400 naming each path) before the handler runs, so the body has
      // the type NEW_OWN_PERSON describes.
      schema: { body: NEW_OWN_PERSON, response: OWN_PERSON },
      async handler(request) {
        const owner = ownerOf(request);
        const created = await ctx.client.create<Person>({
          apiVersion: PEOPLE_API_VERSION,
          kind: PERSON_KIND,
          metadata: { name: request.body.metadata.name, labels: { [OWNER_LABEL]: owner } },
          // The nested person is an open object here; the model's schema checks it as a whole Person on create.
          spec: request.body.spec as PersonSpec,
        });
        return respond(201, created);
      },
    }),
  ];
}

/** What a user sends to create one of their persons: a name and a spec (other metadata is ignored: the route sets the owner). */
const NEW_OWN_PERSON = {
  type: 'object',
  required: ['metadata', 'spec'],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 253 } },
    },
    spec: personSpecSchema,
  },
} as const;

const OWN_PERSON = {
  type: 'object',
  description: `A Person labelled with its owner (${OWNER_LABEL}).`,
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: personSpecSchema,
    status: personStatusSchema,
  },
};

const OWN_PERSON_LIST = {
  type: 'object',
  properties: { items: { type: 'array', items: OWN_PERSON }, total: { type: 'integer' } },
};

function ownerOf(request: RouteRequest): string {
  if (!request.user) throw unauthorized('sign in to see your own persons');
  return request.user.name;
}
