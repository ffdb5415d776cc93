import { SvcApiError } from '@svc/client';
import type { UserPermissions } from '@svc/plugin-api';
import { reactive } from 'vue';
import { CONSOLE_API, client } from './client.js';

/** What `users/-/permissions` answers about the signed-in user. */
export type SignedInUser = UserPermissions;

/** The signed-in user (null when nobody is), read once at start and again whenever it may have changed. */
export const session = reactive<{ user: SignedInUser | null; loaded: boolean }>({ user: null, loaded: false });

/** Reads who is signed in; a 401 means nobody. */
export async function loadSession(): Promise<SignedInUser | null> {
  try {
    session.user = await client.transport.json<SignedInUser>('GET', `${CONSOLE_API}/users/-/permissions`);
  } catch (error) {
    if (!(error instanceof SvcApiError) || (error.status !== 401 && error.status !== 400)) throw error;
    session.user = null;
  }
  session.loaded = true;
  return session.user;
}

export async function signIn(username: string, password: string): Promise<void> {
  await client.signIn(username, password);
  await loadSession();
}

/** Ends the session; answers where to go next when it began at the identity provider, which has a logout of its own. */
export async function signOut(): Promise<string | undefined> {
  try {
    return await client.signOut();
  } finally {
    session.user = null;
  }
}
