import { signInHeaders, type TestResponse, type TestServer } from './harness.js';

export { TEST_ADMIN as ADMIN } from './harness.js';
export const CONSOLE = '/apis/api.console.svc.run/v1alpha1';

/** A signed-in browser: the session cookie, and the CSRF token every unsafe request must echo. */
export interface Session {
  username: string;
  headers: Record<string, string>;
}

/** Signs in through `POST /login`, as a browser would. */
export async function login(t: TestServer, username: string, password: string): Promise<Session> {
  return { username, headers: await signInHeaders(t.anonymous, username, password) };
}

/** A request on behalf of a session (or anonymously when `as` is undefined). */
export function as(t: TestServer, session: Session | undefined) {
  return (method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> =>
    t.anonymous(method, url, body, { ...(session?.headers ?? {}), ...headers });
}

/** Creates a user with roles (as the administrator) and signs them in. */
export async function userWithRoles(t: TestServer, admin: Session, name: string, roles: string[]): Promise<Session> {
  const password = `${name}-password-123`;
  const created = await as(t, admin)('POST', `${CONSOLE}/users`, { name, password, roles });
  if (created.status !== 201) throw new Error(`creating user ${name} failed: ${created.status} ${created.text}`);
  return login(t, name, password);
}
