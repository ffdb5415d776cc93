import { parse as parseQueryString } from 'node:querystring';
import { forbidden, invalid } from '@svc/plugin-api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { noteForAudit, SIGN_IN_NOTES } from '../api/audit-notes.js';
import { callerOf } from '../api/http-context.js';
import type { Authenticator } from './authenticator.js';
import { clearedSessionCookies, readCookie, SESSION_COOKIE, sessionCookies } from './cookies.js';
import type { Credentials } from './credentials.js';
import type { LoginLimiter } from './login-limiter.js';
import { type OidcLoginRouteDeps, oidcLoginRoutes } from './oidc-login-routes.js';
import { sameOrigin } from './origin.js';
import type { Sessions } from './sessions.js';
import type { UserDirectory } from './user-directory.js';

export interface LoginRouteDeps {
  authenticator: Authenticator;
  sessions: Sessions;
  credentials: Credentials;
  users: UserDirectory;
  limiter: LoginLimiter;
  /** False: sign-in with a password is off (SVC_LOCAL_SIGN_IN); `POST /login` answers 403. */
  localSignIn: boolean;
  /** Console sign-in with the provider, when it is set up (oidc-login-routes.ts). */
  oidc?: Omit<OidcLoginRouteDeps, keyof LoginRouteDeps>;
  now?: () => Date;
}

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * `POST /login` and `POST /logout` (docs/api.md "Security"), registered on the Fastify app by main.ts. They live in
 * their own scope so the form parser they need does not make every other route accept form bodies.
 */
export function loginRoutes(deps: LoginRouteDeps) {
  return async function login(scope: FastifyInstance): Promise<void> {
    scope.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
      done(null, parseQueryString(body as string));
    });
    scope.post('/login', (request, reply) => signIn(deps, request, reply));
    scope.post('/logout', (request, reply) => signOut(deps, request, reply));
    if (deps.oidc) oidcLoginRoutes(scope, { ...deps, ...deps.oidc });
  };
}

async function signIn(deps: LoginRouteDeps, request: FastifyRequest, reply: FastifyReply) {
  // A cross-site form must not sign the browser in to someone else's account (login CSRF).
  if (!sameOrigin(request)) throw forbidden("sign-in requests must come from this server's own origin");
  if (!deps.localSignIn) {
    throw forbidden('sign-in with a username and password is turned off on this server (SVC_LOCAL_SIGN_IN=false)');
  }
  const { username, password } = readSignIn(request.body);
  // Who tried, for the audit log: the request itself is anonymous, signed in or not.
  noteForAudit(request, SIGN_IN_NOTES.username, username);
  let passwordRight = false;
  const accepted = await deps.limiter.attempt(request.ip, username, async () => {
    // The hash is checked whatever the account's state, so a disabled account takes the same time as any other.
    passwordRight = await deps.credentials.verify(username, password);
    return passwordRight && deps.users.exists(username) && deps.users.isActive(username);
  });
  if (!accepted) {
    // The reason stays in the log: answering "disabled" only to the right password would confirm the password.
    if (passwordRight && deps.users.exists(username)) {
      request.log.info({ username }, 'sign-in refused: the account is disabled');
    }
    // One answer for an unknown user, a wrong password and a disabled account: it tells nothing about either.
    throw deps.authenticator.challenge('invalid username or password');
  }

  // Each sign-in gets a fresh session (no fixation); the one the browser had, if any, ends.
  const previous = readCookie(request.headers.cookie, SESSION_COOKIE);
  if (previous) {
    const session = await deps.sessions.find(previous);
    if (session) await deps.sessions.end(session.key);
  }
  const { id, xsrfToken } = await deps.sessions.create(username);
  deps.users.recordLogin(username, (deps.now ?? (() => new Date()))());
  reply.header('set-cookie', sessionCookies(id, xsrfToken, request.protocol === 'https'));
  reply.header('cache-control', 'no-store');
  return reply.code(200).send({ username });
}

/**
 * Ends the caller's session: 204. A session begun at the identity provider whose discovery names an
 * `end_session_endpoint` answers 200 with `endSessionUrl`, the provider's logout for the browser to go to next.
 */
async function signOut(deps: LoginRouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const principal = callerOf(request);
  if (principal.username) noteForAudit(request, SIGN_IN_NOTES.username, principal.username);
  let endSessionUrl: string | undefined;
  if (principal.via === 'session' && principal.sessionId) {
    const idToken = deps.oidc && (await deps.sessions.idTokenOf(principal.sessionId));
    await deps.sessions.end(principal.sessionId);
    if (deps.oidc && idToken) endSessionUrl = await deps.oidc.signIn.endSessionUrl(idToken);
  }
  reply.header('set-cookie', clearedSessionCookies(request.protocol === 'https'));
  if (endSessionUrl === undefined) return reply.code(204).send();
  reply.header('cache-control', 'no-store');
  return reply.code(200).send({ endSessionUrl });
}

function readSignIn(body: unknown): { username: string; password: string } {
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const username = single(fields.username);
  const password = single(fields.password);
  const errors = [];
  if (!username) errors.push({ path: '/username', message: 'is required' });
  if (!password) errors.push({ path: '/password', message: 'is required' });
  if (errors.length > 0 || !username || !password) {
    throw invalid('sign in with {"username", "password"} as JSON or as a form', errors);
  }
  return { username, password };
}

/** A form may repeat a field; only a single string value counts. */
function single(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
