import type { ExtensionObject } from '@svc/client';
import { CONSOLE_API, client, t } from '@svc/console-shared';
import {
  ANONYMOUS_ROLE,
  AUTHENTICATED_ROLE,
  BUILT_IN_LABEL,
  DISPLAY_NAME_ANNOTATION,
  type EffectivePermissions,
  HIDDEN_LABEL,
  PLUGIN_NAME_LABEL,
  type PolicyRule,
  type ReachedBy,
  ROLE_TEMPLATE_LABEL,
  SERVICE_VERSION,
} from '@svc/plugin-api';

/** Held by every visitor and every signed-in user: never listed, never picked (the seed). */
export const IMPLICIT_ROLES = new Set([ANONYMOUS_ROLE, AUTHENTICATED_ROLE]);

export type RoleObject = ExtensionObject & { rules?: PolicyRule[] };

export const ROLES = { group: '', version: SERVICE_VERSION, plural: 'roles' } as const;

export const label = (role: RoleObject, key: string) => role.metadata.labels?.[key];
export const annotation = (role: RoleObject, key: string) => role.metadata.annotations?.[key];
export const isTemplate = (role: RoleObject) => label(role, ROLE_TEMPLATE_LABEL) === 'true';
export const isHidden = (role: RoleObject) => label(role, HIDDEN_LABEL) === 'true';
export const displayNameOf = (role: RoleObject | undefined, name = role?.metadata.name ?? '') =>
  (role && annotation(role, DISPLAY_NAME_ANNOTATION)) || name;

/** Who keeps a role: svc itself and a plugin's own roles change only with them; the rest are custom. */
export function sourceOf(role: RoleObject): { kind: 'built-in' | 'plugin' | 'custom'; text: string } {
  if (label(role, BUILT_IN_LABEL) === 'true') return { kind: 'built-in', text: t('roles.source.builtIn') };
  const plugin = label(role, PLUGIN_NAME_LABEL);
  if (plugin) return { kind: 'plugin', text: t('roles.source.plugin', { plugin }) };
  return { kind: 'custom', text: t('roles.source.custom') };
}

/** A JSON-array annotation (dependencies, UI permissions); empty when absent or malformed. */
export function listAnnotation(role: RoleObject, key: string): string[] {
  try {
    const value: unknown = JSON.parse(annotation(role, key) ?? '[]');
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** Every role, by name. */
export async function loadRoles(): Promise<Map<string, RoleObject>> {
  const list = await client.resource<RoleObject>(ROLES).list({ sort: ['metadata.name,asc'] });
  return new Map(list.items.map((r) => [r.metadata.name, r]));
}

export function effectivePermissions(roles: readonly string[]): Promise<EffectivePermissions> {
  return client.request<EffectivePermissions>('POST', `${CONSOLE_API}/effectivepermissions`, { body: { roles } });
}

/** How a role reached by expansion reads: "required by Users management", "aggregated into Post manager". */
export function reachedText(how: ReachedBy, roles: ReadonlyMap<string, RoleObject>): string {
  const from = displayNameOf(roles.get(how.from), how.from);
  return how.through === 'dependency' ? t('roles.requiredBy', { from }) : t('roles.aggregatedInto', { from });
}

/** A rule in words: "get, list on users (core group)", "* on /healthz". */
export function ruleText(rule: PolicyRule): string {
  const verbs = rule.verbs.join(', ');
  if (rule.nonResourceURLs) return t('roles.rule.urls', { verbs, urls: rule.nonResourceURLs.join(', ') });
  const groups = (rule.apiGroups ?? []).map((g) =>
    g === '' ? t('roles.rule.coreGroup') : g === '*' ? t('roles.rule.everyGroup') : g,
  );
  const resources = (rule.resources ?? []).join(', ');
  const what = rule.resourceNames?.length
    ? t('roles.rule.named', { resources, names: rule.resourceNames.join(', ') })
    : resources;
  return t('roles.rule.resources', { verbs, what, groups: groups.join(', ') });
}
