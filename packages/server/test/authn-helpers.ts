import { startTestServer, type Backend, type TestResponse, type TestServer } from './harness.js';

/** Shared by the authentication tests: a server with a known administrator, and a cookie-carrying client. */
export const ADMIN = 'admin';
export const ADMIN_PASSWORD = 'correct horse battery';

export async function startAuthServer(
  env: Record<string, string> = {},
  pluginsDirs: string[] = [],
  backend: Backend = 'sqlite',
): Promise<TestServer> {
  return startTestServer({ env: { SVC_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env }, pluginsDirs, backend, credentials: 'none' });
}

/** The cookies a response sets, as name → value (an expired cookie maps to ''). */
export function setCookies(response: TestResponse): Record<string, string> {
  const header = response.headers['set-cookie'];
  const list = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const cookies: Record<string, string> = {};
  for (const line of list) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    cookies[pair!.slice(0, eq)] = pair!.slice(eq + 1);
  }
  return cookies;
}

/** A browser-like session: signs in, then sends the session cookie and, on writes, the CSRF header. */
export interface Browser {
  username: string;
  cookie: string;
  xsrf: string;
  sessionCookie: string;
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
}

export async function signIn(t: TestServer, username: string, password: string): Promise<Browser> {
  const response = await t.request('POST', '/login', { username, password });
  if (response.status !== 200) throw new Error(`sign-in of ${username} failed: ${response.status} ${response.text}`);
  const cookies = setCookies(response);
  const sessionCookie = cookies.SVC_SESSION!;
  const xsrf = cookies['XSRF-TOKEN']!;
  const cookie = `SVC_SESSION=${sessionCookie}; XSRF-TOKEN=${xsrf}`;
  return {
    username,
    cookie,
    xsrf,
    sessionCookie,
    request(method, url, body, headers = {}) {
      const safe = method === 'GET' || method === 'HEAD';
      return t.request(method, url, body, { cookie, ...(safe ? {} : { 'x-xsrf-token': xsrf }), ...headers });
    },
  };
}

/** Creates a user through the console endpoint as the signed-in administrator. */
export async function createUser(admin: Browser, name: string, password: string, roles?: string[]): Promise<TestResponse> {
  return admin.request('POST', '/apis/api.console.svc.run/v1alpha1/users', { name, password, ...(roles ? { roles } : {}) });
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
