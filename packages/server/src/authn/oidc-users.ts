import { hash } from 'node:crypto';
import { forbidden, isApiError } from '@svc/plugin-api';
import type { ObjectService } from '../registry/object-service.js';
import type { UserObject, UserSpec } from './models.js';
import type { UserDirectory } from './user-directory.js';

/** What of the ID token a User object shows (the token's claims, verified). */
export interface ExternalProfile {
  /** The username the user acts as: the prefix and the username claim (`oidc:alice`). */
  username: string;
  displayName?: string;
  email?: string;
}

const SLUG_LENGTH = 40;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

/**
 * The User object's name of an identity provider's user. Usernames like `oidc:alice` or `oidc:Ann@Example.com` are no
 * valid object names, so the name is a readable slug of it (lowercase letters, digits and `-`, at most 40) and 12
 * hex digits of its SHA-256: stable for a username, and two usernames with one slug still get two names.
 */
export function externalUserName(username: string): string {
  const slug = username
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, SLUG_LENGTH)
    .replace(/^-+|-+$/g, '');
  const digest = hash('sha256', username, 'hex').slice(0, 12);
  return slug === '' ? digest : `${slug}-${digest}`;
}

/**
 * Creates or refreshes the User object of an identity provider's user at sign-in, as the service (only it writes
 * `spec.identity`). Refuses (403) when the name is held by a user that is not this one, or the user is disabled.
 * Returns the object's name.
 */
export async function upsertExternalUser(
  deps: { objects: ObjectService; users: UserDirectory },
  profile: ExternalProfile,
): Promise<string> {
  const { objects } = deps;
  const served = deps.users.served;
  const name = externalUserName(profile.username);
  const wanted: UserSpec = { identity: { provider: 'oidc', username: profile.username } };
  if (profile.displayName) wanted.displayName = profile.displayName.slice(0, 256);
  if (profile.email && profile.email.length <= 320 && EMAIL.test(profile.email)) wanted.email = profile.email;

  let user = await objects.find<UserObject>(served, name);
  if (!user) {
    try {
      await objects.create(served, {
        apiVersion: served.model.apiVersion,
        kind: served.model.kind,
        metadata: { name },
        spec: wanted,
      });
      return name;
    } catch (error) {
      // Signed in twice at once: the other sign-in created it.
      if (!(isApiError(error) && error.status === 409)) throw error;
      user = await objects.get<UserObject>(served, name);
    }
  }
  if (user.spec?.identity?.username !== profile.username) {
    throw forbidden(`user "${name}" exists and is not ${profile.username}'s: ask an administrator to remove it`);
  }
  if (user.spec?.disabled === true || user.metadata.deletionTimestamp) {
    throw forbidden(`user ${profile.username} is disabled`);
  }
  const changed = (['displayName', 'email'] as const).some((field) => user.spec?.[field] !== wanted[field]);
  if (changed) {
    await objects.patch<UserObject>(served, name, (current) => ({
      ...current,
      spec: { ...current.spec, displayName: wanted.displayName, email: wanted.email },
    }));
  }
  return name;
}
