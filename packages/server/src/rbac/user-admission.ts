import { DEPENDENCIES_ANNOTATION, type ExtensionObject, forbidden, KIND } from '@svc/plugin-api';
import { isActiveUser } from '../authn/user-directory.js';
import { aggregationTargets } from '../authz/roles.js';
import type { AdmissionRequest } from '../registry/admission.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { type RoleBindingObject, toRole } from './models.js';
import type { RoleService } from './role-service.js';
import { removeFromAllBindings } from './user-bindings.js';
import type { UserManagement } from './user-management.js';

export interface UserAdmissionDeps {
  objects: ObjectService;
  roles: RoleService;
  management: UserManagement;
  users: ServedModel;
  tokens: ServedModel;
  roleModel: ServedModel;
  bindings: ServedModel;
  /** The local users an administrator put in a group (User `spec.groups`). */
  groupMembers: (group: string) => readonly string[];
}

/**
 * Puts the user-management rules (user-management.ts) into every write of users, their tokens, roles and bindings,
 * whatever route or client makes it: the generated APIs (update, patch, delete, deletecollection, status), the console
 * routes and plugins. The service's own writes (actor `system`) keep the invariants by construction and are not
 * second-guessed, except that a deleted user's bindings always go with them.
 */
export function installUserAdmission(deps: UserAdmissionDeps): void {
  const { objects, management } = deps;
  objects.admission.add(deps.users.model.resource, (request) => admitUser(deps, request));
  objects.admission.addEffect(deps.users.model.resource, (request) => grantsGoWithUser(deps, request));
  objects.admission.add(deps.tokens.model.resource, (request) => {
    if (request.operation === 'create') return;
    const owner = (request.prevObject ?? request.object).spec?.username;
    if (typeof owner === 'string') {
      management.checkMayManage(request.actor, owner, 'revoke or delete the personal access tokens of');
    }
  });
  objects.admission.add(deps.bindings.model.resource, (request) => {
    if (request.actor.kind === 'system') return;
    const name = request.object.metadata.name;
    // Changing a binding changes the roles of each user it names: the console's "assign roles" check, on every path.
    for (const username of usersWhoseGrantsChange(request)) {
      management.checkMayManage(request.actor, username, `change, through RoleBinding "${name}", the roles of`);
    }
    // A group's members are users too, some of them (an identity provider's) not known until they sign in.
    for (const { group, role } of groupsWhoseGrantsChange(request)) {
      const action = `change, through RoleBinding "${name}", the roles of`;
      management.checkMayChangeGroup(request.actor, group, role, deps.groupMembers(group), action);
    }
    if (request.operation === 'create') return;
    const binding = isGone(request) ? undefined : (request.object as RoleBindingObject);
    management.checkKeepsSuperAdministrator(
      { binding: { name, object: binding } },
      `this change of RoleBinding "${name}"`,
      request.hold,
    );
  });
  objects.admission.add(deps.roleModel.model.resource, (request) => {
    if (request.actor.kind === 'system' || request.operation === 'create') return;
    const name = request.object.metadata.name;
    const role = isGone(request) ? undefined : toRole(request.object);
    // Deleting a role deletes its bindings (role-cascade.ts), and changing what it grants changes it for everyone
    // holding it: the same check as a binding's, for each holder.
    if (request.actor.kind === 'user' && changesGrants(request)) {
      for (const username of [...deps.roles.holdersOf(name)].sort()) {
        management.checkMayManage(request.actor, username, `change, through Role "${name}", the permissions of`);
      }
      for (const group of deps.roles.groupsHolding(name)) {
        const action = `change, through Role "${name}", the permissions of`;
        management.checkMayChangeGroup(request.actor, group, name, deps.groupMembers(group), action);
      }
    }
    management.checkKeepsSuperAdministrator({ role: { name, role } }, `this change of Role "${name}"`, request.hold);
  });
}

/** A role write that changes what the role grants: its removal, or new rules, dependencies or aggregation targets. */
function changesGrants(request: AdmissionRequest): boolean {
  if (request.operation === 'delete' || isGone(request) || !request.prevObject) return true;
  const grants = (object: ExtensionObject) => {
    const role = toRole(object);
    return JSON.stringify([role.rules, role.annotations[DEPENDENCIES_ANNOTATION] ?? null, aggregationTargets(role)]);
  };
  return grants(request.prevObject) !== grants(request.object);
}

function admitUser(deps: UserAdmissionDeps, request: AdmissionRequest): void {
  const { actor, operation, object } = request;
  const name = object.metadata.name;
  refuseGroupsUnlessSuper(deps, request);
  refuseIdentityUnlessService(request);
  if (operation === 'create') return;
  const losesAccess = isActiveUser(request.prevObject ?? object) && !isActiveUser(object);
  const deleting = operation === 'delete' || Boolean(object.metadata.deletionTimestamp);
  const action = deleting
    ? 'delete'
    : losesAccess
      ? 'disable'
      : request.subresource
        ? 'change the status of'
        : 'change';
  deps.management.checkMayManage(actor, name, action);
  if (losesAccess && actor.kind !== 'system')
    deps.management.checkMayLoseAccess(name, deleting ? 'deleted' : 'disabled', request.hold);
}

/**
 * `spec.identity` says which identity provider's user the object is (authn/oidc-users.ts): whoever could write it could
 * hand a local account to an outside sign-in, or an outside one's roles to another. Only the service writes it.
 */
function refuseIdentityUnlessService(request: AdmissionRequest): void {
  const { actor, operation, object, prevObject } = request;
  if (operation === 'delete' || actor.kind === 'system') return;
  const identityOf = (user: ExtensionObject | undefined) => JSON.stringify(user?.spec?.identity ?? null);
  if (identityOf(object) === identityOf(operation === 'create' ? undefined : prevObject)) return;
  throw forbidden(`only svc sets the identity of user "${object.metadata.name}" (spec.identity), at sign-in`);
}

/**
 * A user's groups reach every role bound to them, so setting them grants what no escalation check of a binding saw:
 * only a super administrator (or the service) may set or change `spec.groups`.
 */
function refuseGroupsUnlessSuper(deps: UserAdmissionDeps, request: AdmissionRequest): void {
  const { actor, operation, object, prevObject } = request;
  if (operation === 'delete' || actor.kind === 'system') return;
  const groupsOf = (user: ExtensionObject | undefined) =>
    JSON.stringify([...new Set((user?.spec?.groups as string[] | undefined) ?? [])].sort());
  if (groupsOf(object) === groupsOf(operation === 'create' ? undefined : prevObject)) return;
  if (actor.kind === 'user' && deps.roles.isSuper(actor.principal)) return;
  throw forbidden(`only a super administrator may set the groups of user "${object.metadata.name}" (spec.groups)`);
}

/**
 * A user's grants live and die with them. A new user never starts with a grant written before they existed (a deleted
 * namesake's, or one written ahead for the name); the service's own first boot writes the administrator's binding
 * before the user, on purpose. A deleted user's grants go before the user does: a delete that fails after this
 * leaves a user with fewer roles, never a removed user's roles waiting for a namesake.
 */
async function grantsGoWithUser(
  deps: UserAdmissionDeps,
  { actor, operation, object }: AdmissionRequest,
): Promise<void> {
  const joining = operation === 'create' && actor.kind !== 'system';
  // Bindings name an identity provider's user by the username they act as, not the object's name.
  const username = (object.spec?.identity as { username?: string } | undefined)?.username ?? object.metadata.name;
  if (joining || operation === 'delete') await removeFromAllBindings(deps.objects, deps.roles, deps.bindings, username);
}

/**
 * The users a binding write gives or takes a role: everyone it names when it is created, removed or points at another
 * role; otherwise those added to or taken out of its subjects. An update that changes neither grants nothing new.
 */
export function usersWhoseGrantsChange(request: AdmissionRequest): string[] {
  return [...new Set(subjectsWhoseGrantsChange(request, KIND.User).map(({ name }) => name))];
}

/** The same for a binding's groups: each group given or taken a role, with that role. */
function groupsWhoseGrantsChange(request: AdmissionRequest): Array<{ group: string; role: string }> {
  return subjectsWhoseGrantsChange(request, KIND.Group).map(({ name, role }) => ({ group: name, role }));
}

function subjectsWhoseGrantsChange(request: AdmissionRequest, kind: string): Array<{ name: string; role: string }> {
  const before = request.prevObject as RoleBindingObject | undefined;
  // A delete counts at once, finalizers or not: the binding is on its way out.
  const after = request.operation === 'delete' || isGone(request) ? undefined : (request.object as RoleBindingObject);
  const named = (binding: RoleBindingObject | undefined) =>
    new Set((binding?.subjects ?? []).filter((s) => s.kind === kind).map((s) => s.name));
  const was = named(before);
  const is = named(after);
  const taken = (names: Iterable<string>) => [...names].map((name) => ({ name, role: before?.roleRef.name ?? '' }));
  const given = (names: Iterable<string>) => [...names].map((name) => ({ name, role: after?.roleRef.name ?? '' }));
  const changes =
    !before || !after || JSON.stringify(before.roleRef) !== JSON.stringify(after.roleRef)
      ? [...(before ? taken(was) : []), ...(after ? given(is) : [])]
      : [...taken([...was].filter((n) => !is.has(n))), ...given([...is].filter((n) => !was.has(n)))];
  const unique = new Map(changes.map((change) => [`${change.name}\n${change.role}`, change]));
  return [...unique.values()].sort((a, b) => a.name.localeCompare(b.name) || a.role.localeCompare(b.role));
}

/** The write removes the object (a delete, or the last finalizer of an object being deleted). */
function isGone(request: AdmissionRequest): boolean {
  const meta: ExtensionObject['metadata'] = request.object.metadata;
  return request.operation === 'delete' || Boolean(meta.deletionTimestamp && !meta.finalizers?.length);
}
