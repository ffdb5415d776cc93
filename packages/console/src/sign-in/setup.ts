import { CONSOLE_API, client } from '@svc/console-shared';

/** The first-run setup API (docs/api.md "First run"). */
const SETUP = `${CONSOLE_API}/setup`;

/** Whether svc still waits for its first administrator (no user exists). */
export async function setupPending(): Promise<boolean> {
  return (await client.request<{ pending: boolean }>('GET', SETUP)).pending;
}

/** Creates the super administrator with the printed link's token; svc signs this browser in. */
export async function completeSetup(token: string, username: string, password: string): Promise<void> {
  await client.request('POST', SETUP, { body: { token, username, password } });
}
