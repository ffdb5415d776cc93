/**
 * Escalation checks: nobody but the super administrator can grant a permission they do not hold (by writing a role's
 * rules or dependencies, or by binding a role). Each requested rule is broken into atomic permissions (one verb, group,
 * resource and name, or one verb and URL) and every atom must be covered by a single held rule. A wildcard is only
 * covered by the same wildcard, so holding `get` and `list` never lets one grant `*`. Unlike Halo, binding
 * `super-role`, or anything reaching it (the plugin management template does), needs `super-role`.
 */

import { ANONYMOUS_ROLE, AUTHENTICATED_ROLE, DEPENDENCIES_ANNOTATION, SUPER_ROLE } from '@svc/plugin-api';
import { annotationList, type ExpandedRoles, expandRoles, PLUGIN_MANAGEMENT_TEMPLATE, type Role } from './roles.js';
import { ALL, nonResourceURLMatches, type PolicyRule } from './rules.js';

export const BUILT_IN_ROLE_NAMES = [
  SUPER_ROLE,
  ANONYMOUS_ROLE,
  AUTHENTICATED_ROLE,
  'guest',
  'contributor',
  'author',
  'editor',
] as const;
export type BuiltInRoleName = (typeof BUILT_IN_ROLE_NAMES)[number];

export function isBuiltInRole(name: string): name is BuiltInRoleName {
  return (BUILT_IN_ROLE_NAMES as readonly string[]).includes(name);
}

/** Refused: the permissions missing, and, where rules alone do not say it, why in words. */
export type EscalationResult = { ok: true } | { ok: false; missing: PolicyRule[]; reason?: string };

/** What holding `super-role` amounts to, reported as missing when someone else tries to bind it. */
const EVERYTHING: PolicyRule[] = [
  { verbs: [ALL], apiGroups: [ALL], resources: [ALL] },
  { verbs: [ALL], nonResourceURLs: [ALL] },
];

export function confirmNoEscalation(held: ExpandedRoles, requested: readonly PolicyRule[]): EscalationResult {
  if (held.roleNames.has(SUPER_ROLE)) return { ok: true };
  const missing = requested.flatMap(atomicRules).filter((atom) => !held.rules.some(({ rule }) => covers(rule, atom)));
  return missing.length === 0 ? { ok: true } : { ok: false, missing: dedupe(missing) };
}

/** Binding a role grants its whole expansion: dependencies and aggregated templates included. */
export function canBind(held: ExpandedRoles, roleToBind: ExpandedRoles): EscalationResult {
  if (roleToBind.roleNames.has(SUPER_ROLE) && !held.roleNames.has(SUPER_ROLE)) {
    return { ok: false, missing: EVERYTHING.map((rule) => ({ ...rule })), reason: superRoleReason(roleToBind) };
  }
  return confirmNoEscalation(
    held,
    roleToBind.rules.map(({ rule }) => rule),
  );
}

/** Why reaching `super-role` is refused, naming the plugin management template when that is the way there. */
export function superRoleReason(expanded: ExpandedRoles): string {
  if (expanded.roleNames.has(PLUGIN_MANAGEMENT_TEMPLATE)) {
    return (
      `it reaches ${PLUGIN_MANAGEMENT_TEMPLATE}, which counts as ${SUPER_ROLE} (a plugin's code runs inside the ` +
      'server with all of its rights): only a super administrator may grant it'
    );
  }
  return `it reaches ${SUPER_ROLE}: only a super administrator may grant it`;
}

/**
 * Writing a role grants whatever the role amounts to after the write: its rules, its dependencies, and (through a
 * new `aggregate-to-<R>` label) its rules to every holder of R. So the writer must be able to bind the result.
 */
export function canWriteRole(held: ExpandedRoles, role: Role, roles: ReadonlyMap<string, Role>): EscalationResult {
  const after = new Map(roles);
  after.set(role.name, role);
  return canBind(held, expandRoles([role.name], after));
}

/**
 * Dependencies `role` adds (beyond those of `prev`, the role as stored) that name no role. Expansion skips such a
 * name, so the escalation check sees nothing there; but whatever role is created under it later (a plugin's template,
 * an administrator's role) would reach every holder. So a new dependency must name an existing role; one kept from
 * before (its role deleted or its plugin stopped since) may stay.
 */
export function missingDependencies(role: Role, prev: Role | undefined, roles: ReadonlyMap<string, Role>): string[] {
  const before = new Set(prev ? (annotationList(prev, DEPENDENCIES_ANNOTATION) ?? []) : []);
  return (annotationList(role, DEPENDENCIES_ANNOTATION) ?? []).filter((name) => !before.has(name) && !roles.has(name));
}

/** One rule per verb × group × resource × name (absent names stay absent: "every name"), and per verb × URL. */
export function atomicRules(rule: PolicyRule): PolicyRule[] {
  const atoms: PolicyRule[] = [];
  const names: Array<string | undefined> = rule.resourceNames?.length ? [...rule.resourceNames] : [undefined];
  for (const verb of rule.verbs) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        for (const name of names) {
          const atom: PolicyRule = { verbs: [verb], apiGroups: [group], resources: [resource] };
          atoms.push(name === undefined ? atom : { ...atom, resourceNames: [name] });
        }
      }
    }
    for (const url of rule.nonResourceURLs ?? []) atoms.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return atoms;
}

/** Does `held` allow everything the atomic rule `atom` allows? Exact equality is what makes `*` need `*`. */
function covers(held: PolicyRule, atom: PolicyRule): boolean {
  const has = (values: readonly string[] | undefined, value: string) =>
    (values ?? []).includes(ALL) || (values ?? []).includes(value);
  if (!has(held.verbs, atom.verbs[0] ?? '')) return false;
  const url = atom.nonResourceURLs?.[0];
  if (url !== undefined) return (held.nonResourceURLs ?? []).some((h) => urlCovers(h, url));
  const name = atom.resourceNames?.[0];
  const namesCovered = !held.resourceNames?.length || (name !== undefined && has(held.resourceNames, name));
  return (
    namesCovered && has(held.apiGroups, atom.apiGroups?.[0] ?? '') && resourceCovers(held, atom.resources?.[0] ?? '')
  );
}

/** Every request the resource entry `wanted` matches is matched by one of `held.resources`. */
function resourceCovers(held: PolicyRule, wanted: string): boolean {
  const resources = held.resources ?? [];
  if (resources.includes(ALL) || resources.includes(wanted)) return true;
  const parts = wanted.split('/');
  const [first = '', second = '', third = ''] = parts;
  // `<plugin>/<plural>/<sub>` is one resource's subresource.
  if (parts.length === 3) return resources.includes(`${ALL}/${third}`) || resources.includes(`${second}/${third}`);
  // `a/b` reads as subresource b of a, and as plural b of plugin a: both readings must be covered.
  if (parts.length === 2 && first !== ALL) return resources.includes(`${ALL}/${second}`) && resources.includes(second);
  return false;
}

/** Every path the URL entry `wanted` matches is matched by `held`. */
function urlCovers(held: string, wanted: string): boolean {
  if (held === ALL || held === wanted) return true;
  if (!wanted.endsWith(ALL)) return nonResourceURLMatches({ verbs: [], nonResourceURLs: [held] }, wanted);
  if (!held.endsWith(ALL)) return false;
  const prefix = wanted.slice(0, -1);
  const heldPrefix = held.slice(0, -1);
  if (!prefix.startsWith(heldPrefix)) return false;
  // `/a/*` also matches `/a` itself, which a held `/a/b*` would not.
  return !prefix.endsWith('/') || nonResourceURLMatches({ verbs: [], nonResourceURLs: [held] }, prefix.slice(0, -1));
}

function dedupe(rules: PolicyRule[]): PolicyRule[] {
  const seen = new Set<string>();
  return rules.filter((rule) => {
    const key = JSON.stringify(rule);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
