import { badRequest, forbidden, KIND, SUPER_ROLE } from '@svc/plugin-api';
import { canBind } from '../authz/escalation.js';
import { renderRule } from '../authz/rules.js';
import type { Actor } from '../registry/admission.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { RoleBindingObject } from './models.js';
import type { RoleService } from './role-service.js';
import { removeSubject } from './user-bindings.js';
import type { UserManagement } from './user-management.js';

export type SetUserRoles = (actor: Actor, username: string, roles: readonly string[]) => Promise<string[]>;

/**
 * Sets the roles bound to a user (the console's "assign roles"): one RoleBinding `<user>-<role>` per role, removing the
 * user from bindings of roles not in the set. Every role must exist; the writer must be allowed to manage the user
 * (hold all they hold) and, unless super administrator, hold everything each new role grants; the last enabled super
 * administrator keeps `super-role`. All is checked before anything is written. Returns the roles now bound.
 */
export function createSetUserRoles(
  objects: ObjectService,
  roles: RoleService,
  bindings: ServedModel,
  management: UserManagement,
): SetUserRoles {
  return async (actor, username, wanted) => {
    const target = [...new Set(wanted)].sort();
    const unknown = target.filter((r) => !roles.role(r));
    if (unknown.length > 0) throw badRequest(`no such roles: ${unknown.join(', ')}`);
    management.checkMayManage(actor, username, 'change the roles of');
    management.checkMayHoldRoles(username, target);
    if (actor.kind === 'user') {
      const held = roles.expandFor(actor.principal);
      if (!held.roleNames.has(SUPER_ROLE)) {
        for (const role of target) {
          const result = canBind(held, roles.expand([role]));
          if (!result.ok) {
            throw forbidden(
              `you may not grant role "${role}": ${
                result.reason ??
                `it grants ${result.missing.slice(0, 3).map(renderRule).join('; ')}, which you do not hold`
              }`,
            );
          }
        }
      }
    }
    // New roles first, then the old ones go: a super administrator moving to another role that reaches super-role is
    // never, even between two writes, without it (the last one's bindings are guarded).
    const bound = new Set(roles.boundRoles(username));
    for (const role of target) {
      if (bound.has(role)) continue;
      const binding: RoleBindingObject = {
        apiVersion: 'v1alpha1',
        kind: KIND.RoleBinding,
        // An identity provider's username (`oidc:alice`) holds characters no name may: those become `-`.
        metadata: {
          generateName: `${username
            .toLowerCase()
            .replace(/[^-a-z0-9]+/g, '-')
            .replace(/^-+/, '')}-${role}-`.slice(0, 200),
          name: '',
        },
        roleRef: { apiGroup: '', kind: KIND.Role, name: role },
        subjects: [{ apiGroup: '', kind: KIND.User, name: username }],
      };
      delete (binding.metadata as { name?: string }).name;
      await objects.create(bindings, binding, { actor });
    }
    for (const binding of roles.bindingsOf(username)) {
      if (target.includes(binding.roleRef.name)) continue;
      await removeSubject(objects, bindings, binding.metadata.name, username, actor);
    }
    return roles.boundRoles(username);
  };
}
