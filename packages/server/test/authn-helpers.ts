import {
  type Backend,
  signInHeaders,
  startTestServer,
  TEST_ADMIN,
  type TestResponse,
  type TestServer,
} from './harness.js';

/** Shared by the authentication tests: a server with a known administrator, and a cookie-carrying client. */
export const ADMIN = TEST_ADMIN.username;
export const ADMIN_PASSWORD = TEST_ADMIN.password;

export async function startAuthServer(
  env: Record<string, string> = {},
  pluginsDirs: string[] = [],
  backend: Backend = 'sqlite',
): Promise<TestServer> {
  return startTestServer({
    env: { SVC_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env },
    pluginsDirs,
    backend,
    credentials: 'none',
  });
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
  const headers = await signInHeaders(t.request, username, password);
  const cookies = Object.fromEntries(headers.cookie!.split('; ').map((pair) => pair.split('=') as [string, string]));
  const cookie = headers.cookie!;
  const xsrf = headers['x-xsrf-token']!;
  return {
    username,
    cookie,
    xsrf,
    sessionCookie: cookies.SVC_SESSION!,
    request(method, url, body, extra = {}) {
      const safe = method === 'GET' || method === 'HEAD';
      return t.request(method, url, body, { cookie, ...(safe ? {} : { 'x-xsrf-token': xsrf }), ...extra });
    },
  };
}

/** Creates a user through the console endpoint as the signed-in administrator. */
export async function createUser(
  admin: Browser,
  name: string,
  password: string,
  roles?: string[],
): Promise<TestResponse> {
  return admin.request('POST', '/apis/api.console.svc.run/v1alpha1/users', {
    name,
    password,
    ...(roles ? { roles } : {}),
  });
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
