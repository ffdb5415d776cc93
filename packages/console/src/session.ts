import { SvcApiError } from '@svc/client';
import { reactive } from 'vue';
import { CONSOLE_API, client, type SignedInUser } from './api';

/** The signed-in user (null when nobody is), read once from svc and again after sign-in. */
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

export async function signOut(): Promise<void> {
  try {
    await client.signOut();
  } finally {
    session.user = null;
  }
}
