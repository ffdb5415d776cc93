/**
 * Server-side apply over HTTP (docs/api.md "Server-side apply"): `PATCH B/{name}` with `application/apply-patch+yaml`,
 * `?fieldManager=` (required, as Kubernetes does) and `?force=true` to take over other managers' fields. Creates the
 * object when it is absent (the caller then needs `create` as well as `patch`, 201), else updates it (200); applying
 * the same configuration again writes nothing.
 */
import { badRequest, type ExtensionObject } from '@svc/plugin-api';
import { applyConfiguration } from '../objects/field-ownership.js';
import { single } from '../registry/list-query.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { type HttpContext, JSON_TYPE, requireAlso } from './http-context.js';
import { writeOptionsOf } from './write-options.js';

const MAX_MANAGER_LENGTH = 128;

export async function sendApplied(ctx: HttpContext, objects: ObjectService, served: ServedModel, name: string) {
  const query = ctx.request.target.query;
  const manager = single(query, 'fieldManager');
  if (!manager) {
    throw badRequest('fieldManager is required for server-side apply: name who applies, as in ?fieldManager=kubectl');
  }
  if (manager.length > MAX_MANAGER_LENGTH || !/^[\x20-\x7e]+$/.test(manager)) {
    throw badRequest(`fieldManager must be at most ${MAX_MANAGER_LENGTH} printable characters`);
  }
  const force = forceOf(query.force);
  const config = ctx.request.body;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw badRequest(`the apply configuration must be an object (a ${served.model.kind})`);
  }
  const object = config as ExtensionObject;
  const { model } = served;
  // Kubernetes requires both in an apply configuration, even where the stored object would supply them.
  if (object.apiVersion !== model.apiVersion || object.kind !== model.kind) {
    throw badRequest(
      `the apply configuration must have apiVersion "${model.apiVersion}" and kind "${model.kind}", ` +
        `not ${JSON.stringify(object.apiVersion)} and ${JSON.stringify(object.kind)}`,
    );
  }
  if (object.metadata === null || typeof object.metadata !== 'object') object.metadata = { name };
  if (object.metadata.name === undefined) object.metadata.name = name;
  if (object.metadata.name !== name) {
    throw badRequest(`the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`);
  }
  const written = await objects.apply(
    served,
    name,
    (current) =>
      applyConfiguration(current, object, {
        manager,
        force,
        now: new Date(),
        apiVersion: model.apiVersion,
        ignoreStatus: model.statusSubresource,
      }),
    { ...writeOptionsOf(ctx), beforeCreate: () => requireAlso(ctx.request, 'create') },
  );
  return ctx.reply
    .code(written.created ? 201 : 200)
    .type(JSON_TYPE)
    .send(written.bytes);
}

/** `force`: only for apply, `true` or `false`. */
export function forceOf(value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest('query parameter "force" must be true or false');
}
