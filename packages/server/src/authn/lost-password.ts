import { randomBytes } from 'node:crypto';
import type { Store } from '../store/types.js';
import { Credentials } from './credentials.js';
import { userModel } from './models.js';
import { checkPasswordRules } from './passwords.js';
import { Sessions } from './sessions.js';

export interface LostPasswordReset {
  /** Set when no password was given: the one generated, to show once. */
  generatedPassword?: string;
  sessionsEnded: number;
  /** The user is disabled (or being deleted): the reset does not change that. */
  disabled: boolean;
}

/** The store key of the User model (core group: the plural alone). */
const USERS_RESOURCE = userModel.plural;

/**
 * `svc admin reset-password`, for a lost password, on the store directly (no server, so no administrator to sign in
 * as): sets the user's new password and ends their sessions. Nothing else changes: a disabled user stays disabled, and
 * their tokens stay valid (unlike an administrator's reset over the API, this is not a response to a compromise).
 * Only secret records are written, which take no revision, so a running server on the same store sees the new
 * password at its next sign-in.
 */
export async function resetLostPassword(store: Store, username: string, password?: string): Promise<LostPasswordReset> {
  const record = await store.get(USERS_RESOURCE, username);
  if (!record) throw new UnknownUserError(username);
  const user = JSON.parse(record.value.toString('utf8')) as {
    spec?: { disabled?: boolean };
    metadata: { deletionTimestamp?: string };
  };
  const generatedPassword = password === undefined ? randomBytes(18).toString('base64url') : undefined;
  const chosen = password ?? generatedPassword!;
  try {
    checkPasswordRules(chosen);
  } catch (error) {
    throw new Error((error as Error).message.replace(/^password/, 'the new password'));
  }
  await new Credentials(store).setPassword(username, chosen);
  // The policy only decides expiry, which ending sessions does not ask.
  const sessions = new Sessions(store, { sessionIdleTimeoutMs: 1, sessionMaxAgeMs: 1 });
  const sessionsEnded = await sessions.endSessionsOf(username);
  const disabled = user.spec?.disabled === true || user.metadata.deletionTimestamp !== undefined;
  return { generatedPassword, sessionsEnded, disabled };
}

export class UnknownUserError extends Error {
  constructor(readonly username: string) {
    super(`there is no user "${username}" in this store`);
    this.name = 'UnknownUserError';
  }
}
