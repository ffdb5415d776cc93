/**
 * What a plugin may grant through the roles and bindings it writes (its `extensions/`, or its client). A plugin is not
 * a user with permissions to compare against, so escalation is bounded by ownership instead: a plugin may reach its
 * own API and its own roles, and nothing else.
 *
 * - Rules: resource rules only in API groups the plugin owns (no `*`, no core group); non-resource URLs only below
 *   `/apis/<group>/` of such a group (the deep paths of its custom routes are non-resource requests).
 * - Dependencies: only roles of its own, existing when written (a dependency hands the other role's rules to every
 *   holder, and a name with no role yet would hand over whatever role someone creates under it later).
 * - Aggregation: into a built-in role other than `super-role` (how a plugin opens its API to `anonymous`, or adds it
 *   to `editor`), or into a role of its own; its rules are already bounded as above.
 * - Bindings: only to roles of its own.
 */
import { DEPENDENCIES_ANNOTATION, PLUGIN_NAME_LABEL, SUPER_ROLE } from '@svc/plugin-api';
import { isBuiltInRole } from './escalation.js';
import { isDotSegment } from './request-target.js';
import { aggregationTargets, annotationList, type Role } from './roles.js';
import { ALL, type PolicyRule } from './rules.js';

/** A plugin as the check sees it: its name and the API groups it owns (its `svc.run` groups, domains it serves). */
export interface PluginScope {
  plugin: string;
  groups: readonly string[];
}

/** Why the plugin may not grant `rule`, one message per offending value; empty when it may. */
export function ruleProblems(scope: PluginScope, rule: PolicyRule): string[] {
  const problems: string[] = [];
  for (const group of rule.apiGroups ?? []) {
    if (group === ALL) problems.push('apiGroups "*" reaches every API group');
    else if (!scope.groups.includes(group))
      problems.push(`apiGroup "${group}" is not a group plugin "${scope.plugin}" owns`);
  }
  for (const url of rule.nonResourceURLs ?? []) {
    if (!urlIsOwned(scope, url)) {
      problems.push(`nonResourceURL "${url}" is not below /apis/<group>/ of a group plugin "${scope.plugin}" owns`);
    }
  }
  return problems;
}

/** `/apis/<group>`, or a path below `/apis/<group>/` (optionally ending in `*`), for an owned group; no dot segments. */
export function urlIsOwned(scope: PluginScope, url: string): boolean {
  const prefix = url.endsWith(ALL) ? url.slice(0, -1) : url;
  if (prefix.includes(ALL) || prefix.split('/').some(isDotSegment)) return false;
  return scope.groups.some(
    (group) => prefix.startsWith(`/apis/${group}/`) || (prefix === url && url === `/apis/${group}`),
  );
}

/** Why the plugin may not write `role` (given the roles stored now); empty when it may. */
export function roleProblems(scope: PluginScope, role: Role, roles: ReadonlyMap<string, Role>): string[] {
  const problems = role.rules.flatMap((rule, i) => ruleProblems(scope, rule).map((p) => `rules[${i}]: ${p}`));
  for (const dependency of annotationList(role, DEPENDENCIES_ANNOTATION) ?? []) {
    const problem = foreignRole(scope, dependency, roles, false);
    if (problem !== undefined) problems.push(`it depends on ${problem}`);
  }
  // A target with no role yet is fine: whoever creates it must hold what aggregates into it (the plugin's API).
  for (const target of aggregationTargets(role)) {
    if (target !== SUPER_ROLE && isBuiltInRole(target)) continue;
    const problem = foreignRole(scope, target, roles, true);
    if (problem !== undefined) problems.push(`it aggregates into ${problem}`);
  }
  return problems;
}

/** Why the plugin may not bind `roleName`; empty when it may (a role of its own). */
export function bindingProblems(scope: PluginScope, roleName: string, roles: ReadonlyMap<string, Role>): string[] {
  const role = roles.get(roleName);
  if (role?.labels[PLUGIN_NAME_LABEL] === scope.plugin) return [];
  return [`it binds role "${roleName}", which is not a role of plugin "${scope.plugin}"`];
}

/** A message unless `name` is a role of the plugin's own (or, when `mayBeMissing`, no role yet). */
function foreignRole(
  scope: PluginScope,
  name: string,
  roles: ReadonlyMap<string, Role>,
  mayBeMissing: boolean,
): string | undefined {
  if (name === SUPER_ROLE) return `${SUPER_ROLE}, which nothing may reach`;
  const role = roles.get(name);
  if (role === undefined) return mayBeMissing ? undefined : `role "${name}", which does not exist`;
  if (role.labels[PLUGIN_NAME_LABEL] === scope.plugin) return undefined;
  return `role "${name}", which is not a role of plugin "${scope.plugin}"`;
}
