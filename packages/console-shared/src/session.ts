import { SvcApiError } from '@svc/client';
import { reactive } from 'vue';
import { CONSOLE_API, client } from './client.js';

/** A rule the user holds, with the role it came from (`users/-/permissions`). */
export interface HeldRule {
  role: string;
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** What `users/-/permissions` answers about the signed-in user. */
export interface SignedInUser {
  username: string;
  /** Roles bound to the user directly. */
  roles: string[];
  /** Every role the user holds, expanded, without hidden ones. */
  permissions: string[];
  /** UI permissions (`plugin:<plugin>:<scope>`); `*` for a super administrator. */
  uiPermissions: string[];
  rules: HeldRule[];
}

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

export async function signOut(): Promise<void> {
  try {
    await client.signOut();
  } finally {
    session.user = null;
  }
}
