import type { ExtensionObject } from '@svc/client';
import { CONSOLE_API, client, t } from '@svc/console-shared';

export type UserObject = ExtensionObject<
  {
    displayName?: string;
    email?: string;
    disabled?: boolean;
    groups?: string[];
    /** Set on an identity provider's user: the username they sign in as (`oidc:alice`). svc keeps no password. */
    identity?: { provider: 'oidc'; username: string };
  },
  { lastLoginAt?: string; providerGroups?: string[] }
>;

/** A user as `GET …/users` lists them: the object, the roles bound to them, their groups and the groups' roles. */
export interface ListedUser {
  user: UserObject;
  roles: { name: string; displayName?: string }[];
  groups: string[];
  /** An identity provider's user: the groups its last sign-in or ID token named. */
  providerGroups: string[];
  groupRoles: { name: string; displayName?: string; group: string }[];
}

/** The Roles cell: roles bound to the user, then those they hold through a group. */
export function rolesText(row: ListedUser): string {
  const own = row.roles.map((r) => r.displayName ?? r.name);
  const viaGroups = row.groupRoles.map((r) => t('users.viaGroup', { role: r.displayName ?? r.name, group: r.group }));
  return [...own, ...viaGroups].join(', ') || t('common.none');
}

/** The Groups cell: those an administrator set, then those the identity provider last named, marked as its. */
export function groupsText(row: ListedUser): string {
  const fromProvider = row.providerGroups.map((group) => t('users.fromProvider', { group }));
  return [...row.groups, ...fromProvider].join(', ') || t('common.none');
}

export interface UserPage {
  items: ListedUser[];
  total: number;
}

export const USERS = { group: '', version: 'v1alpha1', plural: 'users' } as const;

/** One page of users, searched by svc (a part of the username, display name or email). */
export function listUsers(keyword: string, page: number, size: number): Promise<UserPage> {
  return client.request<UserPage>('GET', `${CONSOLE_API}/users`, {
    query: { keyword: keyword || undefined, page, size, sort: 'metadata.name,asc' },
  });
}

const ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A password to hand over once: 16 characters from the browser's random source, without look-alikes. */
export function generatePassword(length = 16): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  // 256 is not a multiple of the alphabet's size: drawing again for the top of the range keeps it uniform.
  const limit = 256 - (256 % ALPHABET.length);
  let out = '';
  for (const byte of bytes) if (byte < limit) out += ALPHABET[byte % ALPHABET.length];
  return out.length === length ? out : out + generatePassword(length - out.length);
}
