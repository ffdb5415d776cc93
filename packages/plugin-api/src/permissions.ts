/**
 * The console endpoints' answers about roles and permissions (docs/access-control.md "Console endpoints"), as svc
 * writes them and the console reads them.
 */

/** One rule of a role: the seed's fields, each entry possibly `*`. */
export interface PolicyRule {
  apiGroups?: readonly string[];
  /** `<plural>`, `<plural>/<sub>`, `*\/<sub>`, `*`, `<plugin_name>/<plural>`, `<plugin_name>/<plural>/<sub>`. */
  resources?: readonly string[];
  /** Empty or absent means every name; otherwise the request must carry one of these names (or any, with `*`). */
  resourceNames?: readonly string[];
  verbs: readonly string[];
  /** Exact paths, or a prefix ending in `*` (that path and everything below it). */
  nonResourceURLs?: readonly string[];
}

/** A rule held, with the role it came from. */
export interface HeldRule extends PolicyRule {
  role: string;
}

/** How expansion first reached a role it was not started from: as a dependency of `from`, or aggregated into it. */
export interface ReachedBy {
  through: 'dependency' | 'aggregation';
  from: string;
}

/** What a set of roles amounts to, as svc's gate expands it (`POST …/effectivepermissions`). */
export interface EffectivePermissions {
  /** The roles asked about (or bound), sorted. */
  roles: string[];
  /** Every role reached, without hidden ones. */
  permissions: string[];
  /** UI permissions (`plugin:<plugin>:<scope>`); `*` for a super administrator. */
  uiPermissions: string[];
  rules: HeldRule[];
  /** Role name → how it was first reached; the roles started from have no entry. */
  reachedBy: Record<string, ReachedBy>;
}

/** What a user holds (`GET …/users/{name}/permissions`; `-` for the signed-in user). */
export interface UserPermissions extends EffectivePermissions {
  username: string;
}

/** Whether a user may send a request, and which role and rule say so (`POST …/accessreviews`). */
export interface AccessReview {
  /** The user asked about; null for an anonymous caller. */
  user: string | null;
  allowed: boolean;
  reason: string;
  role?: string;
  /** The deciding rule's position in the role's `rules`. */
  rule?: number;
}
