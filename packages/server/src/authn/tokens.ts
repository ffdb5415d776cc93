import {
  ACCESS_TOKEN_ANNOTATION,
  type ExtensionObject,
  forbidden,
  isNotFound,
  notFound,
  SUPER_ROLE,
  TOKEN_DIGESTS_RECORDS,
  unauthorized,
} from '@svc/plugin-api';
import type { Principal } from '../authz/principal.js';
import { PLUGIN_MANAGEMENT_TEMPLATE } from '../authz/roles.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { CommittedChange, ObjectService } from '../registry/object-service.js';
import type { Store } from '../store/types.js';
import { InternalRecords } from './internal-records.js';
import type { TokenObject, TokenSpec } from './models.js';
import type { RolesOf } from './ports.js';
import { digestOf, randomSecret } from './secrets.js';
import { admitTokenWrite, readTokenRequest } from './token-requests.js';
import type { UserDirectory } from './user-directory.js';

export const TOKEN_PREFIX = 'pat_';

/** A token as authentication needs it, derived from its object; the principal is built once and shared. */
interface TokenEntry {
  name: string;
  username: string;
  expiresAtMs: number | undefined;
  revoked: boolean;
  principal: Principal;
  /** When `status.lastUsedAt` was last written (epoch ms). */
  savedAt: number;
}

/** `status.lastUsedAt` is written at most this often per token: use is tracked, not logged. */
const LAST_USED_INTERVAL_MS = 60_000;

/**
 * Personal access tokens (docs/api.md "Security"). The object (model PersonalAccessToken) holds what may be shown; the
 * token's digest lives in an internal record under the token's name. Every token is held in memory, so authenticating
 * with one is two map lookups; writes of the model keep that in step.
 */
export class PersonalAccessTokens {
  private readonly digests: InternalRecords<{ digest: string }>;
  private readonly entries = new Map<string, TokenEntry>();
  private readonly nameByDigest = new Map<string, string>();
  private readonly digestByName = new Map<string, string>();
  private readonly changeListeners = new Set<(name: string, username: string) => void>();

  constructor(
    readonly served: ServedModel,
    private readonly deps: {
      store: Store;
      objects: ObjectService;
      users: UserDirectory;
      /** The roles bound to a user, once role management is there (needed to make tokens that carry roles). */
      rolesOf: () => RolesOf | undefined;
      onBackgroundError?: (error: unknown) => void;
      now?: () => number;
    },
  ) {
    this.digests = new InternalRecords(deps.store.secrets, TOKEN_DIGESTS_RECORDS);
  }

  private get now(): number {
    return (this.deps.now ?? Date.now)();
  }

  async start(): Promise<void> {
    const { objects, users } = this.deps;
    objects.admission.add(this.served.model.resource, admitTokenWrite);
    await this.reloadDigests();
    const page = await objects.list(this.served, { labels: [], fields: [], sort: [] });
    for (const bytes of page.items) this.follow(JSON.parse(bytes.toString('utf8')) as TokenObject);
    objects.onCommitted((change) => this.onCommitted(change));
    // A removed user's tokens go with them (a disabled user's stay, refused while the user is disabled).
    users.onLostAccess((username, event) => {
      if (event === 'removed') void this.removeAllOf(username).catch(this.deps.onBackgroundError);
    });
  }

  /**
   * The principal a `pat_…` token authenticates, or undefined when it is unknown, revoked, expired or its owner may no
   * longer sign in. Memory only: this runs on every token-authenticated request.
   */
  authenticate(token: string): Principal | undefined {
    const name = this.nameByDigest.get(digestOf(token));
    const entry = name === undefined ? undefined : this.entries.get(name);
    if (!entry || entry.revoked) return undefined;
    const now = this.now;
    if (entry.expiresAtMs !== undefined && now >= entry.expiresAtMs) return undefined;
    if (!this.deps.users.isActive(entry.username)) return undefined;
    if (now - entry.savedAt >= LAST_USED_INTERVAL_MS) this.recordUse(entry, now);
    return entry.principal;
  }

  /**
   * Whether the token named still authenticates (as `authenticate` decides, without its secret) and when it expires.
   * Memory only: open watches re-check their token with it.
   */
  check(name: string): { valid: boolean; expiresAtMs: number | undefined } {
    const entry = this.entries.get(name);
    if (!entry) return { valid: false, expiresAtMs: undefined };
    const expired = entry.expiresAtMs !== undefined && this.now >= entry.expiresAtMs;
    const valid = !entry.revoked && !expired && this.deps.users.isActive(entry.username);
    return { valid, expiresAtMs: entry.expiresAtMs };
  }

  /** Listens for tokens written or deleted (revoked, for instance), told after the change is applied. */
  onChanged(listener: (name: string, username: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Creates a token for the caller; the returned object carries the secret in its annotations (shown only here). */
  async create(caller: Principal, body: unknown): Promise<{ object: TokenObject; token: string }> {
    const username = caller.username;
    if (!username) throw unauthorized('sign in to create a personal access token');
    const request = readTokenRequest(body, this.deps.now ?? Date.now);
    await this.checkRolesHeld(caller, username, request.spec.roles);
    const token = randomSecret(TOKEN_PREFIX);
    const digest = digestOf(token);
    const spec: TokenSpec = { ...request.spec, username };
    const written = await this.deps.objects.create(this.served, {
      apiVersion: this.served.model.apiVersion,
      kind: this.served.model.kind,
      metadata: request.name ? { name: request.name } : { generateName: 'pat-' },
      spec,
    });
    const name = written.object.metadata.name;
    try {
      await this.digests.put(name, { digest });
    } catch (error) {
      await this.deps.objects.delete(this.served, name).catch(this.deps.onBackgroundError);
      throw error;
    }
    this.remember(name, digest);
    const object = structuredClone(written.object) as unknown as TokenObject;
    object.metadata.annotations = { ...object.metadata.annotations, [ACCESS_TOKEN_ANNOTATION]: token };
    return { object, token };
  }

  /** The caller's own token by name; another user's token is reported as not found. */
  async getOwn(caller: Principal, name: string): Promise<TokenObject> {
    const object = await this.deps.objects.find<TokenObject>(this.served, name);
    if (!object || !caller.username || object.spec?.username !== caller.username) {
      throw notFound(`PersonalAccessToken "${name}" not found`);
    }
    return object;
  }

  async revoke(caller: Principal, name: string): Promise<Buffer> {
    await this.getOwn(caller, name);
    const at = new Date(this.now).toISOString();
    const written = await this.deps.objects.patch<TokenObject>(this.served, name, (current) => {
      if (current.spec?.revoked) return current;
      return { ...current, spec: { ...current.spec, revoked: true, revokedAt: at } };
    });
    return written.bytes;
  }

  /** Revokes every token of a user, as the service (an administrator's password reset does this). */
  async revokeAllOf(username: string): Promise<void> {
    const at = new Date(this.now).toISOString();
    const names = [...this.entries.values()].filter((e) => e.username === username && !e.revoked).map((e) => e.name);
    const revoke = (current: ExtensionObject) => ({
      ...current,
      spec: { ...current.spec, revoked: true, revokedAt: at },
    });
    await Promise.all(
      names.map((name) =>
        this.deps.objects.patch(this.served, name, revoke).catch((error: unknown) => {
          // Deleted meanwhile: nothing left to revoke.
          if (!isNotFound(error)) throw error;
        }),
      ),
    );
  }

  async remove(caller: Principal, name: string): Promise<Buffer> {
    await this.getOwn(caller, name);
    return (await this.deps.objects.delete(this.served, name)).bytes;
  }

  private async checkRolesHeld(caller: Principal, username: string, roles: readonly string[]): Promise<void> {
    if (roles.length === 0) return;
    const rolesOf = this.deps.rolesOf();
    if (!rolesOf) throw forbidden('roles cannot be checked: role management is not available');
    let held = new Set(await rolesOf(username));
    // A token-authenticated caller acts with its token's roles only, so it cannot mint a token with more.
    if (caller.restrictedToRoles) held = new Set(caller.restrictedToRoles.filter((role) => held.has(role)));
    const missing = roles.filter((role) => !held.has(role));
    if (missing.length > 0) {
      const why = missing.includes(PLUGIN_MANAGEMENT_TEMPLATE)
        ? `; ${PLUGIN_MANAGEMENT_TEMPLATE} counts as ${SUPER_ROLE} (a plugin's code runs inside the server with all ` +
          'of its rights): only a super administrator may hold it or put it in a token'
        : '';
      throw forbidden(
        `a token can carry only roles you hold; you do not hold ${missing.map((r) => `"${r}"`).join(', ')}${why}`,
      );
    }
  }

  /**
   * Another server wrote or removed this token's digest (a shared store): learn it, or forget it. A token made there
   * authenticates here once both its object (through the change feed) and its digest have arrived.
   */
  async digestChangedElsewhere(name: string): Promise<void> {
    const record = await this.digests.get(name);
    if (record) return this.remember(name, record.digest);
    const digest = this.digestByName.get(name);
    if (digest !== undefined) this.nameByDigest.delete(digest);
    this.digestByName.delete(name);
  }

  /** Reads every digest (at start, and when notices from other servers may have been missed). */
  async reloadDigests(): Promise<void> {
    for await (const batch of this.digests.entries())
      for (const [name, { digest }] of batch) this.remember(name, digest);
  }

  private remember(name: string, digest: string): void {
    this.nameByDigest.set(digest, name);
    this.digestByName.set(name, digest);
  }

  private onCommitted(change: CommittedChange): void {
    if (change.served.model.resource !== this.served.model.resource) return;
    const object = change.object as unknown as TokenObject;
    const name = object.metadata.name;
    if (change.type !== 'DELETED') {
      this.follow(object);
    } else {
      this.entries.delete(name);
      const digest = this.digestByName.get(name);
      if (digest !== undefined) this.nameByDigest.delete(digest);
      this.digestByName.delete(name);
      void this.digests.delete(name).catch(this.deps.onBackgroundError);
    }
    const username = object.spec?.username;
    if (username !== undefined) for (const listener of this.changeListeners) listener(name, username);
  }

  private follow(object: TokenObject): void {
    const name = object.metadata.name;
    const spec = object.spec;
    if (!spec) return;
    const lastUsed = object.status?.lastUsedAt ? Date.parse(object.status.lastUsedAt) : 0;
    const principal: Principal = Object.freeze({
      username: spec.username,
      via: 'token',
      restrictedToRoles: Object.freeze([...(spec.roles ?? [])]),
      tokenName: name,
    });
    this.entries.set(name, {
      name,
      username: spec.username,
      expiresAtMs: spec.expiresAt ? Date.parse(spec.expiresAt) : undefined,
      revoked: spec.revoked === true || Boolean(object.metadata.deletionTimestamp),
      principal,
      savedAt: Math.max(lastUsed, this.entries.get(name)?.savedAt ?? 0),
    });
  }

  private recordUse(entry: TokenEntry, now: number): void {
    entry.savedAt = now;
    const at = new Date(now).toISOString();
    const write = this.deps.objects.patch(
      this.served,
      entry.name,
      (current: ExtensionObject) => ({ ...current, status: { ...current.status, lastUsedAt: at } }),
      { subresource: 'status' },
    );
    void write.catch((error: unknown) => {
      if (!isNotFound(error)) this.deps.onBackgroundError?.(error);
    });
  }

  private async removeAllOf(username: string): Promise<void> {
    const names = [...this.entries.values()].filter((e) => e.username === username).map((e) => e.name);
    await Promise.all(names.map((name) => this.deps.objects.delete(this.served, name).catch(() => undefined)));
  }
}
