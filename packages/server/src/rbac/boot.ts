import type { ExtensionObject } from '@svc/plugin-api';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import { SYSTEM } from '../registry/admission.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { BUILT_IN_ROLES, CORE_TEMPLATES } from './built-in-roles.js';
import { type RoleObject, roleBindingModel, roleModel } from './models.js';
import { installRoleAdmission, type PluginGroups } from './role-admission.js';
import { installRoleCascade } from './role-cascade.js';
import { RoleService } from './role-service.js';

/**
 * Registers Role and RoleBinding, restores the service's own roles, and starts the role service that follows them.
 * `pluginGroups` says which API groups a plugin owns, so what it declares can be bounded by them.
 */
export async function startRbac(registry: ModelRegistry, objects: ObjectService, pluginGroups: PluginGroups) {
  const roles = await registry.register(normalizeModelDefinition(roleModel, { kind: 'system' }), 'core');
  const bindings = await registry.register(normalizeModelDefinition(roleBindingModel, { kind: 'system' }), 'core');
  const service = new RoleService(roles, bindings);
  installRoleAdmission(
    objects,
    service,
    { roles: roles.model.resource, bindings: bindings.model.resource },
    pluginGroups,
  );
  installRoleCascade(objects, service, { roles, bindings });
  for (const role of [...BUILT_IN_ROLES, ...CORE_TEMPLATES]) await restore(objects, roles, role);
  await service.start(objects);
  return { service, roles, bindings };
}

/** Creates the role, or puts it back as the service defines it if someone changed it in the store. */
async function restore(objects: ObjectService, served: ServedModel, role: RoleObject): Promise<void> {
  const existing = await objects.find(served, role.metadata.name);
  if (!existing) {
    await objects.create(served, structuredClone(role), { actor: SYSTEM });
    return;
  }
  if (sameRole(existing, role)) return;
  const restored = structuredClone(role);
  restored.metadata.version = existing.metadata.version;
  await objects.update(served, role.metadata.name, restored, { actor: SYSTEM });
}

function sameRole(a: ExtensionObject, b: RoleObject): boolean {
  const shape = (o: ExtensionObject) =>
    JSON.stringify([o.metadata.labels ?? {}, o.metadata.annotations ?? {}, (o as RoleObject).rules ?? []]);
  return shape(a) === shape(b);
}
