import {
  AGGREGATE_TO_LABEL_PREFIX,
  BUILT_IN_LABEL,
  conflict,
  DEPENDENCIES_ANNOTATION,
  type ExtensionObject,
  forbidden,
  HIDDEN_LABEL,
  invalid,
  SUPER_ROLE,
} from '@svc/plugin-api';
import { canBind, canWriteRole, type EscalationResult, missingDependencies } from '../authz/escalation.js';
import { bindingProblems, type PluginScope, roleProblems } from '../authz/plugin-grants.js';
import { PLUGIN_MANAGEMENT_TEMPLATE, type Role, validateRoleAnnotations } from '../authz/roles.js';
import { renderRule } from '../authz/rules.js';
import { describeOwner, ownerOf } from '../objects/ownership.js';
import type { Actor, AdmissionRequest } from '../registry/admission.js';
import type { ObjectService } from '../registry/object-service.js';
import { SYSTEM_ROLE_NAMES } from './built-in-roles.js';
import { type RoleBindingObject, toRole } from './models.js';
import type { RoleService } from './role-service.js';

/** The API groups a plugin owns now: its `svc.run` groups and the domains its models and routes use. */
export type PluginGroups = (plugin: string) => readonly string[];

/**
 * The rules every Role and RoleBinding write obeys, whoever writes it:
 * - the service's own roles are restored at boot and cannot be edited or deleted through the API;
 * - nobody but the super administrator grants what they do not hold (k8s' ConfirmNoEscalation): a role's rules, what
 *   it aggregates or depends on, and a binding's role are checked against the writer's own permissions;
 * - a plugin writes only roles and bindings of its own, reaching only its own API and roles (authz/plugin-grants.ts);
 * - a role a plugin declared changes only with the plugin: a user who could empty it, bind it and wait for the plugin
 *   to restore it would hold rules no check ever saw;
 * - a role name that bindings or dependencies still name (a stopped plugin's template) is not for a user to take, and
 *   a dependency a user adds names an existing role: either would hand over whatever role takes that name later;
 * - no role aggregates into `super-role`, and only a super administrator into the plugin management template, which
 *   amounts to it;
 * - a binding names an existing role, and role annotations hold valid JSON.
 */
export function installRoleAdmission(
  objects: ObjectService,
  roles: RoleService,
  resources: { roles: string; bindings: string },
  pluginGroups: PluginGroups,
) {
  const scopeOf = (plugin: string): PluginScope => ({ plugin, groups: pluginGroups(plugin) });
  objects.admission.add(resources.roles, (request) => admitRole(request, roles, scopeOf));
  objects.admission.add(resources.bindings, (request) => admitBinding(request, roles, scopeOf));
}

function admitRole(request: AdmissionRequest, roles: RoleService, scopeOf: (plugin: string) => PluginScope): void {
  const { actor, object } = request;
  const name = object.metadata.name;
  if (actor.kind !== 'system' && SYSTEM_ROLE_NAMES.has(name)) {
    throw forbidden(`role "${name}" is built into the service and cannot be ${request.operation}d through the API`);
  }
  refuseForeignWrite(request, 'role');
  if (
    actor.kind !== 'system' &&
    request.operation !== 'delete' &&
    object.metadata.labels?.[BUILT_IN_LABEL] !== undefined
  ) {
    throw forbidden(`label ${BUILT_IN_LABEL} marks the service's own roles; it cannot be set through the API`);
  }
  refuseHiding(request, roles);
  if (actor.kind === 'user' && request.operation === 'update' && ownerOf(request.prevObject) !== undefined) {
    throw forbidden(
      `role "${name}" is declared by ${describeOwner(ownerOf(request.prevObject))}: it changes only with the plugin`,
    );
  }
  if (request.operation === 'delete') return;
  const role = toRole(object);
  const errors = validateRoleAnnotations(role);
  if (errors.length > 0)
    throw invalid(`Role "${name}" is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
  if (actor.kind === 'user' && request.operation === 'create') refuseBoundName(name, roles);
  if (actor.kind === 'user') refuseMissingDependencies(role, request.prevObject, roles);
  if (actor.kind !== 'system' && role.labels[`${AGGREGATE_TO_LABEL_PREFIX}${SUPER_ROLE}`] !== undefined) {
    throw forbidden(`role "${name}" may not aggregate into ${SUPER_ROLE}: it is reserved`);
  }
  const intoPluginManagement = role.labels[`${AGGREGATE_TO_LABEL_PREFIX}${PLUGIN_MANAGEMENT_TEMPLATE}`] !== undefined;
  if (intoPluginManagement && (actor.kind === 'plugin' || heldBy(actor, roles))) {
    throw forbidden(
      `role "${name}" may not aggregate into ${PLUGIN_MANAGEMENT_TEMPLATE}: it counts as ${SUPER_ROLE} (a plugin's ` +
        'code runs inside the server with all of its rights), so only a super administrator may add to it',
    );
  }
  if (actor.kind === 'plugin')
    refusePluginGrant(roleProblems(scopeOf(actor.plugin), role, roles.allRoles()), actor.plugin, `role "${name}"`);
  const held = heldBy(actor, roles);
  if (held) refuseEscalation(canWriteRole(held, role, roles.allRoles()), `write role "${name}"`);
}

function admitBinding(request: AdmissionRequest, roles: RoleService, scopeOf: (plugin: string) => PluginScope): void {
  refuseForeignWrite(request, 'role binding');
  if (request.operation === 'delete' || onlyNarrows(request)) return;
  const binding = request.object as RoleBindingObject;
  const roleName = binding.roleRef.name;
  if (!roles.role(roleName)) {
    throw invalid(`RoleBinding "${binding.metadata.name}" names role "${roleName}", which does not exist`, [
      { path: '/roleRef/name', message: `must name an existing role` },
    ]);
  }
  const { actor } = request;
  if (actor.kind === 'plugin') {
    refusePluginGrant(
      bindingProblems(scopeOf(actor.plugin), roleName, roles.allRoles()),
      actor.plugin,
      `role binding "${binding.metadata.name}"`,
    );
  }
  const held = heldBy(actor, roles);
  if (held) refuseEscalation(canBind(held, roles.expand([roleName])), `bind role "${roleName}"`);
}

/**
 * An update that keeps the role and only takes subjects away grants nothing, so it is admitted even where the role
 * is gone (a stopped plugin's template) or the writer could not bind it: removing a user from a binding always works.
 */
function onlyNarrows(request: AdmissionRequest): boolean {
  const prev = request.prevObject as RoleBindingObject | undefined;
  const next = request.object as RoleBindingObject;
  if (request.operation !== 'update' || !prev || JSON.stringify(prev.roleRef) !== JSON.stringify(next.roleRef))
    return false;
  const before = new Set((prev.subjects ?? []).map((s) => JSON.stringify([s.kind, s.name, s.apiGroup ?? ''])));
  return (next.subjects ?? []).every((s) => before.has(JSON.stringify([s.kind, s.name, s.apiGroup ?? ''])));
}

/**
 * `svc.run/hidden` keeps a role off the Roles page and out of the role picker: for the self-service templates and a
 * plugin's internal ones. A role writer who set it on a role of theirs would hide what they granted from whoever
 * reviews roles, so only plugins (their declared templates) and super administrators may set or change it; a user may
 * keep it as it is, or remove it.
 */
function refuseHiding(request: AdmissionRequest, roles: RoleService): void {
  if (request.operation === 'delete' || heldBy(request.actor, roles) === undefined) return;
  const value = request.object.metadata.labels?.[HIDDEN_LABEL];
  if (value === undefined || value === request.prevObject?.metadata.labels?.[HIDDEN_LABEL]) return;
  throw forbidden(
    `label ${HIDDEN_LABEL} hides a role from the Roles page and the role picker: only a plugin's declared templates ` +
      'and super administrators may set it',
  );
}

/** A plugin writes only its own roles and bindings: those carrying its name in the owner label. */
function refuseForeignWrite(request: AdmissionRequest, what: string): void {
  if (request.actor.kind !== 'plugin') return;
  const owner = ownerOf(request.prevObject ?? request.object);
  if (owner === request.actor.plugin) return;
  throw forbidden(
    `plugin "${request.actor.plugin}" may write only its own ${what}s; ${what} "${request.object.metadata.name}" belongs to ${describeOwner(owner)}`,
  );
}

/** Bindings and dependencies left by a stopped plugin still name its template: a user's role would inherit them. */
function refuseBoundName(name: string, roles: RoleService): void {
  const list = (names: string[]) => `${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`;
  const bindings = roles.bindingsTo(name).map((b) => b.metadata.name);
  const dependents = roles.dependentsOf(name);
  if (bindings.length === 0 && dependents.length === 0) return;
  const by = [
    ...(bindings.length > 0 ? [`RoleBindings ${list(bindings)}`] : []),
    ...(dependents.length > 0 ? [`the dependencies of roles ${list(dependents)}`] : []),
  ];
  throw conflict(
    `role "${name}" is still named by ${by.join(' and ')} (a stopped plugin's template had this name); ` +
      'a new role would inherit them: remove them first',
  );
}

function refuseMissingDependencies(role: Role, prevObject: ExtensionObject | undefined, roles: RoleService): void {
  const missing = missingDependencies(role, prevObject && toRole(prevObject), roles.allRoles());
  if (missing.length === 0) return;
  throw invalid(
    `Role "${role.name}" depends on roles that do not exist: ${missing.join(', ')}; a dependency must name an existing role`,
    [
      {
        path: `/metadata/annotations/${DEPENDENCIES_ANNOTATION.replace(/\//g, '~1')}`,
        message: 'must name existing roles',
      },
    ],
  );
}

function refusePluginGrant(problems: string[], plugin: string, what: string): void {
  if (problems.length === 0) return;
  throw forbidden(
    `plugin "${plugin}" may not declare ${what}: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? '; …' : ''}`,
  );
}

/** The writer's permissions, or undefined when no escalation check applies (the service, or a super administrator). */
function heldBy(actor: Actor, roles: RoleService) {
  if (actor.kind !== 'user') return undefined;
  const held = roles.expandFor(actor.principal);
  return held.roleNames.has(SUPER_ROLE) ? undefined : held;
}

function refuseEscalation(result: EscalationResult, what: string): void {
  if (result.ok) return;
  if (result.reason) throw forbidden(`you may not ${what}: ${result.reason}`);
  const missing = result.missing.slice(0, 5).map(renderRule).join('; ');
  throw forbidden(
    `you may not ${what}: it grants permissions you do not hold (${missing}${result.missing.length > 5 ? '; …' : ''})`,
  );
}
