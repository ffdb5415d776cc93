import type { Principal } from '../authz/principal.js';
import { SUPER_ROLE } from '../authz/roles.js';
import type { RoleService } from './role-service.js';

/**
 * The UI permissions a user holds, as `users/-/permissions` answers them: those of every role they reach, sorted;
 * `*` for a super administrator, who may see every part of the console, plugin UIs included.
 */
export function uiPermissionsOf(roles: Pick<RoleService, 'expandFor'>, username: string): string[] {
  const principal: Principal = { username, via: 'session' };
  const expanded = roles.expandFor(principal);
  const held = new Set<string>(expanded.roleNames.has(SUPER_ROLE) ? ['*'] : []);
  for (const p of expanded.uiPermissions) held.add(p);
  return [...held].sort();
}
