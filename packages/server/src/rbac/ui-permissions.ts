import { SUPER_ROLE } from '@svc/plugin-api';
import type { ExpandedRoles } from '../authz/roles.js';

/** The UI permission of the console's resource browser, held by whoever may list at least one model. */
export const BROWSE_RESOURCES_UI_PERMISSION = 'system:resources:view';

/**
 * The UI permissions roles expanded thus amount to, as `users/-/permissions`, the role picker's preview and the
 * console's events all report them: those of every role reached, sorted; `*` for a super administrator, who may see
 * every part of the console, plugin UIs included; and the resource browser's, which is no role's: the server decides
 * it from the models these roles may list, so the browser never matches rules itself.
 */
export function uiPermissionsOf(expanded: ExpandedRoles, mayBrowseModels: (expanded: ExpandedRoles) => boolean) {
  const held = new Set<string>(expanded.roleNames.has(SUPER_ROLE) ? ['*'] : []);
  for (const p of expanded.uiPermissions) held.add(p);
  if (!held.has('*') && mayBrowseModels(expanded)) held.add(BROWSE_RESOURCES_UI_PERMISSION);
  return [...held].sort();
}
