/**
 * Role resolution: which roles (and so which rules and UI permissions) a set of starting roles amounts to.
 *
 * A held role brings in its dependencies (annotation) and every role labelled `aggregate-to-<it>`, transitively in
 * both directions: an aggregated template's own dependencies, and anything aggregated into it, count too. Halo
 * stops after one level of aggregation; svc does not. Cycles are harmless (each role is visited once) and names
 * with no stored role are skipped. The server precomputes `aggregationIndex` once per role change.
 */
import {
  AGGREGATE_TO_LABEL_PREFIX,
  DEPENDENCIES_ANNOTATION,
  type FieldError,
  type PolicyRule,
  type ReachedBy,
  UI_PERMISSIONS_ANNOTATION,
} from '@svc/plugin-api';

/**
 * The core template that installs, upgrades and enables plugins. Plugin code runs inside the server with all of its
 * rights, so whoever holds this template can do anything: it depends on `super-role`, and granting it is granting that.
 */
export const PLUGIN_MANAGEMENT_TEMPLATE = 'role-template-manage-plugins';

/** A role as authorization sees it; the server maps stored Role objects to this. */
export interface Role {
  name: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  rules: readonly PolicyRule[];
}

export interface ExpandedRule {
  role: string;
  /** Position of the rule in its role's `rules`, for reasons. */
  index: number;
  rule: PolicyRule;
}

export interface ExpandedRoles {
  roleNames: Set<string>;
  rules: ExpandedRule[];
  uiPermissions: Set<string>;
  /** Role name → how it was first reached; the starting roles have no entry. Says where a rule comes from. */
  reachedBy: Map<string, ReachedBy>;
}

/** Target role name → names of the roles that aggregate into it (sorted, so expansion order is stable). */
export type AggregationIndex = ReadonlyMap<string, readonly string[]>;

/** The roles `role` aggregates into: labels `aggregate-to-<R>` whose value is exactly `'true'`. */
export function aggregationTargets(role: Pick<Role, 'labels'>): string[] {
  return Object.entries(role.labels)
    .filter(([key, value]) => key.startsWith(AGGREGATE_TO_LABEL_PREFIX) && value === 'true')
    .map(([key]) => key.slice(AGGREGATE_TO_LABEL_PREFIX.length))
    .filter((target) => target !== '');
}

export function aggregationIndex(roles: ReadonlyMap<string, Role>): AggregationIndex {
  const index = new Map<string, string[]>();
  for (const [name, role] of roles) {
    for (const target of aggregationTargets(role)) {
      const sources = index.get(target) ?? [];
      sources.push(name);
      index.set(target, sources);
    }
  }
  for (const sources of index.values()) sources.sort();
  return index;
}

/** The string array an annotation holds, or undefined when it is absent or malformed (validation reports that). */
export function annotationList(role: Pick<Role, 'annotations'>, key: string): string[] | undefined {
  const raw = role.annotations[key];
  if (raw === undefined) return undefined;
  const parsed = parseStringArray(raw);
  return typeof parsed === 'string' ? undefined : parsed;
}

export function expandRoles(
  roleNames: Iterable<string>,
  roles: ReadonlyMap<string, Role>,
  index: AggregationIndex = aggregationIndex(roles),
): ExpandedRoles {
  const order: string[] = [];
  const seen = new Set<string>();
  const reachedBy = new Map<string, ReachedBy>();
  const visit = (name: string, how?: ReachedBy) => {
    if (seen.has(name) || !roles.has(name)) return;
    seen.add(name);
    order.push(name);
    if (how) reachedBy.set(name, how);
  };
  for (const name of roleNames) visit(name);
  // `order` grows while we walk it: a breadth-first closure over both kinds of edge.
  for (let i = 0; i < order.length; i++) {
    const name = order[i] as string;
    const role = roles.get(name) as Role;
    for (const dependency of annotationList(role, DEPENDENCIES_ANNOTATION) ?? [])
      visit(dependency, { through: 'dependency', from: name });
    for (const source of index.get(name) ?? []) visit(source, { through: 'aggregation', from: name });
  }
  const expanded: ExpandedRoles = { roleNames: seen, rules: [], uiPermissions: new Set(), reachedBy };
  for (const name of order) {
    const role = roles.get(name) as Role;
    role.rules.forEach((rule, ruleIndex) => {
      expanded.rules.push({ role: name, index: ruleIndex, rule });
    });
    for (const permission of annotationList(role, UI_PERMISSIONS_ANNOTATION) ?? []) {
      expanded.uiPermissions.add(permission);
    }
  }
  return expanded;
}

/** Problems in a role's RBAC annotations and labels, so the API can refuse the role at write time. */
export function validateRoleAnnotations(role: Pick<Role, 'annotations' | 'labels'>): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of [DEPENDENCIES_ANNOTATION, UI_PERMISSIONS_ANNOTATION]) {
    const raw = role.annotations[key];
    if (raw === undefined) continue;
    const parsed = parseStringArray(raw);
    const problem =
      typeof parsed === 'string' ? parsed : parsed.some((s) => s === '') ? 'must not contain empty strings' : undefined;
    if (problem !== undefined) errors.push({ path: `/metadata/annotations/${pointerToken(key)}`, message: problem });
  }
  for (const key of Object.keys(role.labels)) {
    if (key === AGGREGATE_TO_LABEL_PREFIX) {
      errors.push({ path: `/metadata/labels/${pointerToken(key)}`, message: 'must name the role to aggregate into' });
    }
  }
  return errors;
}

/** The parsed array, or a message saying why the text is not a JSON array of strings. */
function parseStringArray(raw: string): string[] | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return 'must be a JSON array of strings, but is not valid JSON';
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    return 'must be a JSON array of strings';
  }
  return value as string[];
}

/** RFC 6901 escaping of one JSON Pointer token. */
function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
