/**
 * Policy rules and the five matchers whose conjunction decides whether one rule allows one request. RBAC is purely
 * additive: a rule either allows a request or says nothing about it.
 *
 * Where svc differs from Halo on purpose: the `<plugin_name>/<plural>` form matches, every `resourceNames` entry
 * counts, and `*\/<subresource>` matches.
 */

import type { PolicyRule } from '@svc/plugin-api';
import { isDotSegment } from './request-target.js';

export const ALL = '*';

export type { PolicyRule };

/** What a rule is matched against: a classified request, plus the plugin that owns the resource (if any). */
export interface Attributes {
  isResourceRequest: boolean;
  verb: string;
  path: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  /** The plugin owning the model or custom API; the server fills it so `<plugin>/<plural>` rules can match. */
  plugin?: string;
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

export function resourceMatches(
  rule: PolicyRule,
  request: { resource: string; subresource: string; plugin?: string | undefined },
): boolean {
  const { resource, subresource, plugin } = request;
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  return (rule.resources ?? []).some(
    (r) =>
      r === ALL ||
      r === combined ||
      (subresource !== '' && r === `${ALL}/${subresource}`) ||
      // Only the plugin that owns the resource can be named in front of it.
      (plugin !== undefined && plugin !== '' && r === `${plugin}/${combined}`),
  );
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  // A named rule never allows list, create or deletecollection: they act on objects it did not name.
  if (name === '') return false;
  return names.some((n) => n === ALL || n === name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((url) => {
    if (url === ALL || url === path) return true;
    if (!url.endsWith(ALL)) return false;
    // A prefix must not be escaped with `..`: such paths only ever match exactly. (The gate refuses dot segments
    // before classification; this keeps the matcher safe for any caller.)
    if (path.split('/').some(isDotSegment)) return false;
    const prefix = url.slice(0, -1);
    return path.startsWith(prefix) || (prefix.endsWith('/') && path === prefix.slice(0, -1));
  });
}

export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (!attributes.isResourceRequest) return nonResourceURLMatches(rule, attributes.path);
  return (
    apiGroupMatches(rule, attributes.apiGroup) &&
    resourceMatches(rule, attributes) &&
    resourceNameMatches(rule, attributes.name)
  );
}

/** A short, stable rendering for reasons and error messages: `verbs=get,list apiGroups="" resources=persons`. */
export function renderRule(rule: PolicyRule): string {
  const list = (values: readonly string[]) => values.map((v) => (v === '' ? '""' : v)).join(',');
  const fields: Array<[string, readonly string[] | undefined]> = [
    ['verbs', rule.verbs],
    ['apiGroups', rule.apiGroups],
    ['resources', rule.resources],
    ['resourceNames', rule.resourceNames],
    ['nonResourceURLs', rule.nonResourceURLs],
  ];
  return fields
    .filter(([, values]) => values !== undefined && values.length > 0)
    .map(([key, values]) => `${key}=${list(values ?? [])}`)
    .join(' ');
}
