import type { Actor } from '../registry/admission.js';

/**
 * What authentication needs from role management (the RBAC part), as plain functions the RBAC module provides. Kept as
 * functions so neither module imports the other.
 */

/** The roles bound to a user (through RoleBindings), by role name. */
export type RolesOf = (username: string) => Promise<readonly string[]>;

/**
 * Makes `roles` exactly the roles bound to `username`, on behalf of `actor`; refuses (throws a 403 ApiError) what the
 * actor may not grant. Used by `POST /apis/api.console.svc.run/v1alpha1/users` when the body names roles. (The shape
 * of rbac/user-roles.ts' function, so it is passed as is.)
 */
export type SetUserRoles = (actor: Actor, username: string, roles: readonly string[]) => Promise<unknown>;

/**
 * Refuses (throws a 403 ApiError) unless `actor` may act on user `target`: hold everything the target holds (see
 * rbac/user-management.ts). `action` completes the reason: "reset the password of", ….
 */
export type ManageUser = (actor: Actor, target: string, action: string) => void;

/**
 * Role management as authentication uses it: the RBAC module provides it once both exist (it needs authentication's
 * users to compare permissions). Until then, and without RBAC, creating a user with roles is refused and no user may
 * act on another.
 */
export interface RoleManagement {
  /** Needed to make tokens that carry roles. */
  rolesOf?: RolesOf;
  setUserRoles?: SetUserRoles;
  manageUser: ManageUser;
}
