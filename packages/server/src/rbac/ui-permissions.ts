import type { Principal } from '../authz/principal.js';
import { annotationList, SUPER_ROLE, UI_PERMISSIONS_ANNOTATION } from '../authz/roles.js';
import type { RoleService } from './role-service.js';

/**
 * The UI permissions a user holds (`users/-/permissions`' `uiPermissions`): those of every role they reach, sorted;
 * `*` for a super administrator, who may see every part of the console, plugin UIs included.
 */
export function uiPermissionsOf(roles: RoleService, username: string): string[] {
  const principal: Principal = { username, via: 'session' };
  const expanded = roles.expandFor(principal);
  const held = new Set<string>(expanded.roleNames.has(SUPER_ROLE) ? ['*'] : []);
  for (const name of expanded.roleNames) {
    for (const p of annotationList(roles.role(name) ?? { annotations: {} }, UI_PERMISSIONS_ANNOTATION) ?? []) {
      held.add(p);
    }
  }
  return [...held].sort();
}
