import { CONSOLE_API, client } from '@svc/console-shared';

/** The first-run setup API (docs/api.md "First run"). */
const SETUP = `${CONSOLE_API}/setup`;

/** What the sign-in page needs to know: whether setup is pending, and which ways of signing in svc offers. */
export interface SignInOptions {
  pending: boolean;
  /** False: sign-in with a password is off (SVC_LOCAL_SIGN_IN). */
  localSignIn: boolean;
  /** Present when svc offers console sign-in with an identity provider: its name for the button. */
  oidc?: { name: string };
}

export async function signInOptions(): Promise<SignInOptions> {
  const answer = await client.request<Partial<SignInOptions>>('GET', SETUP);
  return { pending: answer.pending === true, localSignIn: answer.localSignIn !== false, oidc: answer.oidc };
}

/** Whether svc still waits for its first administrator (no user exists). */
export async function setupPending(): Promise<boolean> {
  return (await signInOptions()).pending;
}

/** Creates the super administrator with the printed link's token; svc signs this browser in. */
export async function completeSetup(token: string, username: string, password: string): Promise<void> {
  await client.request('POST', SETUP, { body: { token, username, password } });
}
