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

  /** Records a successful sign-in in `status.lastLoginAt`, off the request's path. */
  recordLogin(username: string, at: Date): void {
    const write = this.objects.patch(
      this.served,
      this.objectNameOf(username),
      (user: ExtensionObject) => ({ ...user, status: { ...user.status, lastLoginAt: at.toISOString() } }),
      { subresource: 'status' },
    );
    void write.catch((error: unknown) => {
      // The user was removed meanwhile: nothing to record.
      if (!isNotFound(error)) this.onBackgroundError(error);
    });
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
      this.announce(acting, 'removed');
      return;
    }
    this.setIdentity(name, (change.object as UserObject).spec?.identity?.username);
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

/** A user may sign in and act: not disabled, not being deleted. */
export function isActiveUser(user: Pick<UserObject, 'spec' | 'metadata'>): boolean {
  return user.spec?.disabled !== true && !user.metadata.deletionTimestamp;
}
