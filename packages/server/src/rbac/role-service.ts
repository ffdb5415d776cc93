import {
  ANONYMOUS_ROLE,
  AUTHENTICATED_ROLE,
  DEPENDENCIES_ANNOTATION,
  type ExtensionObject,
  KIND,
  SUPER_ROLE,
} from '@svc/plugin-api';
import { authorize, type Decision } from '../authz/authorizer.js';
import type { Principal } from '../authz/principal.js';
import {
  type AggregationIndex,
  aggregationIndex,
  annotationList,
  type ExpandedRoles,
  expandRoles,
  type Role,
} from '../authz/roles.js';
import type { Attributes } from '../authz/rules.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { CommittedChange, ObjectService } from '../registry/object-service.js';
import { type RoleBindingObject, toRole } from './models.js';

/** A hypothetical write for `RoleService.holdersOf`: one binding or one role replaced, or removed when undefined. */
export interface WhatIf {
  binding?: { name: string; object: RoleBindingObject | undefined };
  role?: { name: string; role: Role | undefined };
}

/**
 * Roles and bindings held in memory, kept in step with every committed write, so authorizing a request reads nothing
 * from the store. Expanding roles (dependencies and aggregation) is memoized per set of starting roles and per
 * principal object, and redone whenever a role changes; a binding change only changes which roles a user starts from.
 * Decisions are not cached here: the gate's one cache of them is decision-cache.ts.
 */
export class RoleService {
  private readonly roles = new Map<string, Role>();
  private readonly bindings = new Map<string, RoleBindingObject>();
  private rolesByUser = new Map<string, Set<string>>();
  private rolesByGroup = new Map<string, Set<string>>();
  /** The groups an administrator gave a local user (User `spec.groups`), once authentication provides them. */
  private localGroupsOf: (username: string) => readonly string[] = () => [];
  private aggregation: AggregationIndex = new Map();
  /** Expansion by set of starting roles; every user with the same roles shares one. */
  private expansions = new Map<string, ExpandedRoles>();
  /** Expansion by principal object: a token's principal is one object reused by all its requests. */
  private byPrincipal = new WeakMap<Principal, ExpandedRoles>();
  private readonly changeListeners = new Set<() => void>();

  constructor(
    private readonly roleModel: ServedModel,
    private readonly bindingModel: ServedModel,
  ) {}

  /** Loads every role and binding, then follows writes. */
  async start(objects: ObjectService): Promise<void> {
    for (const bytes of (await objects.list(this.roleModel, { labels: [], fields: [], sort: [] })).items) {
      const role = toRole(JSON.parse(bytes.toString('utf8')) as ExtensionObject);
      this.roles.set(role.name, role);
    }
    for (const bytes of (await objects.list(this.bindingModel, { labels: [], fields: [], sort: [] })).items) {
      const binding = JSON.parse(bytes.toString('utf8')) as RoleBindingObject;
      this.bindings.set(binding.metadata.name, binding);
    }
    this.rebuildUserIndex();
    this.rolesChanged();
    objects.onCommitted((change) => this.follow(change));
  }

  /**
   * Listens for role and binding changes, told after the change is applied: what anyone may do may have changed
   * (open watches are re-checked on this). Returns the unsubscribe function.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  role(name: string): Role | undefined {
    return this.roles.get(name);
  }

  allRoles(): ReadonlyMap<string, Role> {
    return this.roles;
  }

  /** The roles bound to a user (not expanded), by name only: not those their groups hold. */
  boundRoles(username: string): string[] {
    return [...(this.rolesByUser.get(username) ?? [])].sort();
  }

  /** The roles bound to a group (not expanded). */
  groupRoles(group: string): string[] {
    return [...(this.rolesByGroup.get(group) ?? [])].sort();
  }

  /**
   * The groups a principal is in: those its credential carries (an OIDC token's) and those an administrator gave the
   * local user of that name.
   */
  groupsOf(principal: Principal): string[] {
    if (!principal.username) return [];
    const local = principal.via === 'oidc' ? [] : this.localGroupsOf(principal.username);
    return [...new Set([...(principal.groups ?? []), ...local])].sort();
  }

  /** Where local users' groups come from; called again, or `groupsChanged`, when they change. */
  useLocalGroups(groupsOf: (username: string) => readonly string[]): void {
    this.localGroupsOf = groupsOf;
    this.groupsChanged();
  }

  /** A local user's groups changed: expansions by principal are redone, and open watches re-checked. */
  groupsChanged(): void {
    this.forgetPrincipals();
    for (const listener of this.changeListeners) listener();
  }

  /**
   * The users whose bindings reach `roleName` (directly, through dependencies or aggregation), optionally as if one
   * binding or one role were written (`object`/`role` undefined: removed). Guards that must keep someone holding a
   * role ask this before a write commits.
   */
  holdersOf(roleName: string, whatIf: WhatIf = {}): Set<string> {
    const byUser = whatIf.binding
      ? rolesBySubject(withEntry(this.bindings, whatIf.binding.name, whatIf.binding.object).values())
      : this.rolesByUser;
    let reaches = (names: readonly string[]) => this.expand(names).roleNames.has(roleName);
    if (whatIf.role) {
      const roles = withEntry(this.roles, whatIf.role.name, whatIf.role.role);
      const index = aggregationIndex(roles);
      // Many users share a set of roles: expand each set once.
      const known = new Map<string, boolean>();
      reaches = (names) => {
        const key = [...names].sort().join('\n');
        let result = known.get(key);
        if (result === undefined) known.set(key, (result = expandRoles(names, roles, index).roleNames.has(roleName)));
        return result;
      };
    }
    const holders = new Set<string>();
    for (const [username, bound] of byUser) if (reaches([...bound])) holders.add(username);
    return holders;
  }

  /** The groups whose bound roles reach role `roleName` (directly, through dependencies or aggregation). */
  groupsHolding(roleName: string): string[] {
    const groups: string[] = [];
    for (const [group, bound] of this.rolesByGroup)
      if (this.expand([...bound]).roleNames.has(roleName)) groups.push(group);
    return groups.sort();
  }

  /** The bindings naming user `username` (not those naming a group of theirs). */
  bindingsOf(username: string): RoleBindingObject[] {
    return [...this.bindings.values()].filter((b) =>
      b.subjects.some((s) => s.kind === KIND.User && s.name === username),
    );
  }

  /** The bindings naming role `roleName`, whether or not it exists. */
  bindingsTo(roleName: string): RoleBindingObject[] {
    return [...this.bindings.values()].filter((b) => b.roleRef.name === roleName);
  }

  /** The names of the roles whose dependencies name role `roleName`, whether or not it exists. */
  dependentsOf(roleName: string): string[] {
    return [...this.roles.values()]
      .filter((role) => annotationList(role, DEPENDENCIES_ANNOTATION)?.includes(roleName))
      .map((role) => role.name);
  }

  /**
   * The roles a principal starts from: `anonymous`, plus `authenticated` and the roles bound to it and to its groups
   * when logged in.
   */
  startingRoles(principal: Principal): string[] {
    if (!principal.username) return [ANONYMOUS_ROLE];
    const byGroup = this.groupsOf(principal).flatMap((group) => [...(this.rolesByGroup.get(group) ?? [])]);
    let bound = [...new Set([...this.boundRoles(principal.username), ...byGroup])].sort();
    if (principal.restrictedToRoles) bound = bound.filter((r) => principal.restrictedToRoles!.includes(r));
    return [ANONYMOUS_ROLE, AUTHENTICATED_ROLE, ...bound];
  }

  expand(roleNames: readonly string[]): ExpandedRoles {
    const key = [...roleNames].sort().join('\n');
    let expanded = this.expansions.get(key);
    if (!expanded) {
      expanded = expandRoles(roleNames, this.roles, this.aggregation);
      this.expansions.set(key, expanded);
    }
    return expanded;
  }

  expandFor(principal: Principal): ExpandedRoles {
    let expanded = this.byPrincipal.get(principal);
    if (!expanded) this.byPrincipal.set(principal, (expanded = this.expand(this.startingRoles(principal))));
    return expanded;
  }

  isSuper(principal: Principal): boolean {
    return this.expandFor(principal).roleNames.has(SUPER_ROLE);
  }

  /** The pure authorizer over the principal's expanded roles. */
  authorize(principal: Principal, attributes: Attributes): Decision {
    return authorize(attributes, this.expandFor(principal));
  }

  private follow(change: CommittedChange): void {
    const resource = change.served.model.resource;
    if (resource === this.roleModel.model.resource) {
      if (change.type === 'DELETED') this.roles.delete(change.object.metadata.name);
      else this.roles.set(change.object.metadata.name, toRole(change.object));
      this.rolesChanged();
    } else if (resource === this.bindingModel.model.resource) {
      if (change.type === 'DELETED') this.bindings.delete(change.object.metadata.name);
      else this.bindings.set(change.object.metadata.name, change.object as RoleBindingObject);
      this.rebuildUserIndex();
    } else {
      return;
    }
    for (const listener of this.changeListeners) listener();
  }

  private forgetPrincipals(): void {
    this.byPrincipal = new WeakMap();
  }

  private rebuildUserIndex(): void {
    this.forgetPrincipals();
    this.rolesByUser = rolesBySubject(this.bindings.values(), KIND.User);
    this.rolesByGroup = rolesBySubject(this.bindings.values(), KIND.Group);
  }

  private rolesChanged(): void {
    this.aggregation = aggregationIndex(this.roles);
    this.expansions = new Map();
    this.forgetPrincipals();
  }
}

/** Username (or group name) → the roles the bindings naming it name. */
function rolesBySubject(bindings: Iterable<RoleBindingObject>, kind: string = KIND.User): Map<string, Set<string>> {
  const byUser = new Map<string, Set<string>>();
  for (const binding of bindings) {
    for (const subject of binding.subjects ?? []) {
      if (subject.kind !== kind) continue;
      let set = byUser.get(subject.name);
      if (!set) byUser.set(subject.name, (set = new Set()));
      set.add(binding.roleRef.name);
    }
  }
  return byUser;
}

function withEntry<T>(map: ReadonlyMap<string, T>, name: string, value: T | undefined): Map<string, T> {
  const copy = new Map(map);
  if (value === undefined) copy.delete(name);
  else copy.set(name, value);
  return copy;
}
