import { badRequest, forbidden } from '@svc/plugin-api';
import { canBind } from '../authz/escalation.js';
import { SUPER_ROLE } from '../authz/roles.js';
import { renderRule } from '../authz/rules.js';
import type { Actor } from '../registry/admission.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { RoleBindingObject } from './models.js';
import type { RoleService } from './role-service.js';

export type SetUserRoles = (actor: Actor, username: string, roles: readonly string[]) => Promise<string[]>;

/**
 * Sets the roles bound to a user (the console's "assign roles"): one RoleBinding `<user>-<role>` per role, removing the
 * user from bindings of roles not in the set. Every role must exist, and a writer who is not super administrator must
 * hold everything each role grants; all is checked before anything is written. Returns the roles now bound.
 */
export function createSetUserRoles(objects: ObjectService, roles: RoleService, bindings: ServedModel): SetUserRoles {
  return async (actor, username, wanted) => {
    const target = [...new Set(wanted)].sort();
    const unknown = target.filter((r) => !roles.role(r));
    if (unknown.length > 0) throw badRequest(`no such roles: ${unknown.join(', ')}`);
    if (actor.kind === 'user') {
      const held = roles.expandFor(actor.principal);
      if (!held.roleNames.has(SUPER_ROLE)) {
        for (const role of target) {
          const result = canBind(held, roles.expand([role]));
          if (!result.ok) {
            throw forbidden(`you may not grant role "${role}": it grants ${result.missing.slice(0, 3).map(renderRule).join('; ')}, which you do not hold`);
          }
        }
      }
    }
    for (const binding of roles.bindingsOf(username)) {
      if (target.includes(binding.roleRef.name)) continue;
      const others = binding.subjects.filter((s) => !(s.kind === 'User' && s.name === username));
      if (others.length === 0) await objects.delete(bindings, binding.metadata.name, { actor });
      else await objects.update(bindings, binding.metadata.name, { ...binding, subjects: others }, { actor });
    }
    const bound = new Set(roles.boundRoles(username));
    for (const role of target) {
      if (bound.has(role)) continue;
      const binding: RoleBindingObject = {
        apiVersion: 'v1alpha1',
        kind: 'RoleBinding',
        metadata: { generateName: `${username}-${role}-`.slice(0, 200), name: '' },
        roleRef: { apiGroup: '', kind: 'Role', name: role },
        subjects: [{ apiGroup: '', kind: 'User', name: username }],
      };
      delete (binding.metadata as { name?: string }).name;
      await objects.create(bindings, binding, { actor });
    }
    return roles.boundRoles(username);
  };
}
