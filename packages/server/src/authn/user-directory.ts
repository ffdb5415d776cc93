import { type ExtensionObject, isNotFound } from '@svc/plugin-api';
import type { ServedModel } from '../registry/model-registry.js';
import type { CommittedChange, ObjectService } from '../registry/object-service.js';
import type { UserObject } from './models.js';

/** What happened to a user that ends their access: removed, or disabled (or being deleted). */
export type UserEvent = 'removed' | 'deactivated';

/**
 * Which users exist and may sign in, held in memory and kept in step with every committed write of the User model,
 * so that checking a session's or token's owner on each request reads nothing from the store.
 */
export class UserDirectory {
  /** Username → active (exists, not disabled, not being deleted). */
  private readonly users = new Map<string, boolean>();
  private readonly listeners = new Set<(username: string, event: UserEvent) => void>();
  /** Username → the groups an administrator gave them (`spec.groups`), for users that have some. */
  private readonly groups = new Map<string, readonly string[]>();
  private readonly groupListeners = new Set<() => void>();
  /** An external user's username (`oidc:alice`) → their User object's name (oidc-users.ts), and back. */
  private readonly objectNames = new Map<string, string>();
  private readonly identities = new Map<string, string>();
  /** An external user's object name → the provider groups their User's status records, one per line, sorted. */
  private readonly providerGroups = new Map<string, string>();
  /** Object names whose provider groups are being written, and the groups being written. */
  private readonly writingGroups = new Map<string, string>();

  constructor(
    readonly served: ServedModel,
    private readonly objects: ObjectService,
    private readonly onBackgroundError: (error: unknown) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    const page = await this.objects.list(this.served, { labels: [], fields: [], sort: [] });
    for (const bytes of page.items) {
      const user = JSON.parse(bytes.toString('utf8')) as UserObject;
      this.users.set(user.metadata.name, isActiveUser(user));
      this.setGroups(user.metadata.name, user.spec?.groups);
      this.setIdentity(user.metadata.name, user.spec?.identity?.username);
      this.setProviderGroups(user);
    }
    this.objects.onCommitted((change) => this.follow(change));
  }

  get size(): number {
    return this.users.size;
  }

  /** Whether a user exists: a local one by name, an external one by the username they sign in as too. */
  exists(username: string): boolean {
    return this.users.has(this.objectNameOf(username));
  }

  isActive(username: string): boolean {
    return this.users.get(this.objectNameOf(username)) === true;
  }

  /** The User object's name of a username: itself for a local user, the mapped name for an external one. */
  objectNameOf(username: string): string {
    return this.objectNames.get(username) ?? username;
  }

  /** The username a User object's user acts as: their identity's for an external user, else the object's name. */
  usernameOf(objectName: string): string {
    return this.identities.get(objectName) ?? objectName;
  }

  /** Whether the User object of this name is an identity provider's user (no password of svc's). */
  isExternal(objectName: string): boolean {
    return this.identities.has(objectName);
  }

  /** The groups an administrator gave a local user (none for an unknown one). */
  groupsOf(username: string): readonly string[] {
    return this.groups.get(username) ?? [];
  }

  /** The users an administrator put in `group` (by `spec.groups`), by the username they act as. */
  membersOf(group: string): string[] {
    const members: string[] = [];
    for (const [name, groups] of this.groups) if (groups.includes(group)) members.push(this.usernameOf(name));
    return members.sort();
  }

  /** Listens for a change of some user's groups. */
  onGroupsChanged(listener: () => void): () => void {
    this.groupListeners.add(listener);
    return () => this.groupListeners.delete(listener);
  }

  /** Listens for users losing access (sessions and tokens of theirs end). */
  onLostAccess(listener: (username: string, event: UserEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Records a successful sign-in in `status.lastLoginAt`, off the request's path; for an identity provider's user,
   * also the groups its ID token named (`status.providerGroups`).
   */
  recordLogin(username: string, at: Date, providerGroups?: readonly string[]): void {
    const lastLoginAt = at.toISOString();
    const groups = providerGroups && sortedGroups(providerGroups);
    void this.patchStatus(this.objectNameOf(username), (status) =>
      groups ? { ...status, lastLoginAt, providerGroups: groups } : { ...status, lastLoginAt },
    );
  }

  /**
   * The groups an ID token used as a bearer token named, for its user's record: written (off the request's path)
   * only when the user has a User object and the groups differ from those it records, so a busy client costs one
   * comparison a request and no write.
   */
  noteProviderGroups(username: string, providerGroups: readonly string[]): void {
    const name = this.objectNames.get(username);
    if (name === undefined) return;
    const groups = sortedGroups(providerGroups);
    const key = groups.join('\n');
    if ((this.providerGroups.get(name) ?? '') === key || this.writingGroups.get(name) === key) return;
    this.writingGroups.set(name, key);
    void this.patchStatus(name, (status) => ({ ...status, providerGroups: groups })).finally(() => {
      if (this.writingGroups.get(name) === key) this.writingGroups.delete(name);
    });
  }

  /** The provider groups a User object's status records (none for a local user). */
  providerGroupsOf(objectName: string): readonly string[] {
    const groups = this.providerGroups.get(objectName);
    return groups ? groups.split('\n') : [];
  }

  private patchStatus(name: string, change: (status: Record<string, unknown>) => Record<string, unknown>) {
    const write = this.objects.patch(
      this.served,
      name,
      (user: ExtensionObject) => ({ ...user, status: change({ ...user.status }) }),
      { subresource: 'status' },
    );
    return write.then(
      () => undefined,
      (error: unknown) => {
        // The user was removed meanwhile: nothing to record.
        if (!isNotFound(error)) this.onBackgroundError(error);
      },
    );
  }

  private follow(change: CommittedChange): void {
    if (change.served.model.resource !== this.served.model.resource) return;
    const name = change.object.metadata.name;
    const wasActive = this.users.get(name) === true;
    const changedGroups = this.setGroups(
      name,
      change.type === 'DELETED' ? undefined : (change.object as UserObject).spec?.groups,
    );
    if (changedGroups) for (const listener of this.groupListeners) listener();
    // Sessions and tokens carry the username the user acts as: an external user's identity, not the object's name.
    const acting = this.usernameOf(name);
    if (change.type === 'DELETED') {
      this.users.delete(name);
      this.setIdentity(name, undefined);
      this.providerGroups.delete(name);
      this.announce(acting, 'removed');
      return;
    }
    this.setIdentity(name, (change.object as UserObject).spec?.identity?.username);
    this.setProviderGroups(change.object as UserObject);
    const active = isActiveUser(change.object as UserObject);
    this.users.set(name, active);
    if (wasActive && !active) this.announce(acting, 'deactivated');
  }

  private setIdentity(objectName: string, username: string | undefined): void {
    const before = this.identities.get(objectName);
    if (before !== undefined) this.objectNames.delete(before);
    if (username === undefined) this.identities.delete(objectName);
    else {
      this.identities.set(objectName, username);
      this.objectNames.set(username, objectName);
    }
  }

  private setProviderGroups(user: UserObject): void {
    const groups = user.status?.providerGroups;
    if (groups?.length) this.providerGroups.set(user.metadata.name, groups.join('\n'));
    else this.providerGroups.delete(user.metadata.name);
  }

  /** Whether the user's groups are now other than they were. */
  private setGroups(username: string, groups: readonly string[] | undefined): boolean {
    const before = this.groups.get(username) ?? [];
    const after = [...new Set(groups ?? [])].sort();
    if (after.length === 0) this.groups.delete(username);
    else this.groups.set(username, Object.freeze(after));
    return before.join('\n') !== after.join('\n');
  }

  private announce(username: string, event: UserEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(username, event);
      } catch (error) {
        this.onBackgroundError(error);
      }
    }
  }
}

/** Groups as a status records them: each once, sorted, at most the schema's 1,000. */
function sortedGroups(groups: readonly string[]): string[] {
  return [...new Set(groups)].sort().slice(0, 1000);
}

/** A user may sign in and act: not disabled, not being deleted. */
export function isActiveUser(user: Pick<UserObject, 'spec' | 'metadata'>): boolean {
  return user.spec?.disabled !== true && !user.metadata.deletionTimestamp;
}
