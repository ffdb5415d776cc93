/**
 * Which `svc.run` domains belong to the service and which to plugins. Used for model groups, custom route groups and
 * label prefixes, so the three never disagree (docs/api.md "Objects" and "Plugins").
 */
import { RBAC_DOMAIN, SERVICE_DOMAIN } from '@svc/plugin-api';
import { DNS_SUBDOMAIN_PATTERN, NAME_PATTERN } from './names.js';

/**
 * Plugin names a plugin may not take because `<name>.svc.run` (and its `api.` forms) is a service domain. Names with
 * dots (`rbac.authorization`) are already impossible as plugin names.
 */
export const RESERVED_PLUGIN_NAMES: readonly string[] = Object.freeze([
  'plugin',
  'security',
  'content',
  'auth',
  'console',
  'api',
  'uc',
  'core',
  'system',
]);

/**
 * The service's own domains. A domain here and every subdomain of it (`api.console.svc.run`) is the service's; as a
 * label prefix only the keys in WELL_KNOWN_LABEL_KEYS are accepted under it.
 */
export const SERVICE_DOMAINS: readonly string[] = Object.freeze([
  SERVICE_DOMAIN,
  RBAC_DOMAIN,
  ...RESERVED_PLUGIN_NAMES.map((name) => `${name}.${SERVICE_DOMAIN}`),
]);

/** True when `domain` is a service domain or below one. `svc.run` itself covers only itself, not every plugin's. */
export function isServiceDomain(domain: string): boolean {
  if (domain === SERVICE_DOMAIN) return true;
  // Every service domain ends in the reserved suffix: most label prefixes are turned away by this one test.
  if (!domain.endsWith(SERVICE_DOMAIN)) return false;
  return SUBDOMAIN_OWNERS.some(([own, dotted]) => domain === own || domain.endsWith(dotted));
}

/** Each service domain below the suffix, with its `.`-prefixed form (built once, not per label checked). */
const SUBDOMAIN_OWNERS: readonly (readonly [string, string])[] = SERVICE_DOMAINS.filter(
  (own) => own !== SERVICE_DOMAIN,
).map((own) => [own, `.${own}`] as const);

/** The groups a plugin gets inside `svc.run`: its own domain and the console, user-center and public API forms. */
export function pluginServiceGroups(pluginName: string): string[] {
  const own = `${pluginName}.${SERVICE_DOMAIN}`;
  return [own, `console.api.${own}`, `uc.api.${own}`, `api.${own}`];
}

export function isValidPluginName(name: string): boolean {
  return NAME_PATTERN.test(name) && name.length <= 63 && !RESERVED_PLUGIN_NAMES.includes(name);
}

/**
 * May plugin `pluginName` declare models or routes in `group`? A domain of its own (any non-empty group not ending in
 * `svc.run`), or one of its `svc.run` groups. The suffix is matched as text, as the seed words it ("any group ending
 * in the reserved suffix"), so `mysvc.run` is refused too.
 */
export function isGroupOwnedBy(group: string, pluginName: string): boolean {
  if (!isValidPluginName(pluginName)) return false;
  if (group === '' || group.length > 253 || !DNS_SUBDOMAIN_PATTERN.test(group)) return false;
  if (!group.endsWith(SERVICE_DOMAIN)) return true;
  return pluginServiceGroups(pluginName).includes(group);
}
