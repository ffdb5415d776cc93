/**
 * The RBAC decision for one request. RBAC only allows or has no opinion, so a denial is "no rule allowed it": the
 * HTTP layer turns it into 401 for anonymous callers and 403 for the others. A reason always names what decided,
 * so access reviews and logs can show it.
 */

import { SUPER_ROLE } from '@svc/plugin-api';
import type { ExpandedRoles } from './roles.js';
import { type Attributes, renderRule, ruleAllows } from './rules.js';

export interface Decision {
  allowed: boolean;
  reason: string;
  /** The role whose rule allowed the request. */
  role?: string;
  /** Index of that rule in the role's `rules`. */
  ruleIndex?: number;
}

export interface AuthorizeOptions {
  /** Who is asking (a username), only to make the reason readable. */
  subject?: string;
}

export function authorize(attributes: Attributes, expanded: ExpandedRoles, options: AuthorizeOptions = {}): Decision {
  const who = options.subject === undefined ? '' : ` for user ${JSON.stringify(options.subject)}`;
  if (expanded.roleNames.has(SUPER_ROLE)) {
    return { allowed: true, reason: `allowed${who}: role "${SUPER_ROLE}" allows everything`, role: SUPER_ROLE };
  }
  for (const { role, index, rule } of expanded.rules) {
    if (ruleAllows(attributes, rule)) {
      return {
        allowed: true,
        reason: `allowed${who} by role "${role}" rule ${index} (${renderRule(rule)})`,
        role,
        ruleIndex: index,
      };
    }
  }
  return { allowed: false, reason: `no rule${who} allowed ${describeRequest(attributes)}` };
}

/** `get on persons/status "ann" in group "people.svc.run" (plugin people)`, or `post on path /login`. */
export function describeRequest(attributes: Attributes): string {
  if (!attributes.isResourceRequest) return `${attributes.verb} on path ${attributes.path}`;
  const resource =
    attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  const name = attributes.name === '' ? '' : ` ${JSON.stringify(attributes.name)}`;
  const plugin = attributes.plugin === undefined || attributes.plugin === '' ? '' : ` (plugin ${attributes.plugin})`;
  return `${attributes.verb} on ${resource}${name} in group ${JSON.stringify(attributes.apiGroup)}${plugin}`;
}
