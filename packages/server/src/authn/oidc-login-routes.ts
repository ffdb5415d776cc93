import { badRequest, forbidden, isApiError, serviceUnavailable } from '@svc/plugin-api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { markSignIn, noteForAudit, SIGN_IN_NOTES } from '../api/audit-notes.js';
import type { ObjectService } from '../registry/object-service.js';
import { readCookie, SESSION_COOKIE, sessionCookies } from './cookies.js';
import type { LoginRouteDeps } from './login-routes.js';
import { clearedFlowCookie, flowCookie, isConsolePath, readFlow } from './oidc-flow.js';
import { CONSOLE_SIGN_IN, type OidcSignIn, OidcSignInRefused } from './oidc-sign-in.js';
import { upsertExternalUser } from './oidc-users.js';

export const OIDC_LOGIN_PATH = '/login/oidc';
export const OIDC_CALLBACK_PATH = '/login/oidc/callback';

export interface OidcLoginRouteDeps extends LoginRouteDeps {
  signIn: OidcSignIn;
  objects: ObjectService;
}

/**
 * `GET /login/oidc` (to the provider) and `GET /login/oidc/callback` (back from it) of console sign-in with the
 * provider (docs/access-control.md "Single sign-on"): the callback makes a session like `POST /login`'s, for the
 * user the ID token names, with its groups.
 */
export function oidcLoginRoutes(scope: FastifyInstance, deps: OidcLoginRouteDeps): void {
  scope.get(OIDC_LOGIN_PATH, (request, reply) => start(deps, request, reply));
  scope.get(OIDC_CALLBACK_PATH, (request, reply) => callback(deps, request, reply));
}

async function start(deps: OidcLoginRouteDeps, request: FastifyRequest, reply: FastifyReply) {
  reply.header('cache-control', 'no-store');
  try {
    const { url, pending } = await refusalsAsApiErrors(() => deps.signIn.start(returnToOf(request)));
    reply.header('set-cookie', flowCookie(pending, secure(deps)));
    return reply.redirect(url, 302);
  } catch (error) {
    // The provider cannot be reached: a browser sees why on the sign-in page.
    if (isApiError(error) && wantsPage(request)) return backToSignIn(reply, error.detail);
    throw error;
  }
}

async function callback(deps: OidcLoginRouteDeps, request: FastifyRequest, reply: FastifyReply) {
  // A sign-in's callback is a sign-in: audited as one, though the provider sends it as a GET.
  markSignIn(request);
  const pending = readFlow(request.headers.cookie);
  // Whatever happens, the sign-in under way is over: its state cannot be played again.
  reply.header('set-cookie', clearedFlowCookie(secure(deps)));
  reply.header('cache-control', 'no-store');
  const query = new URL(request.url, 'http://callback').searchParams;
  try {
    const signedIn = await refusalsAsApiErrors(() => deps.signIn.finish(query, pending));
    const username = signedIn.principal.username!;
    noteForAudit(request, SIGN_IN_NOTES.username, username);
    await upsertExternalUser(deps, { username, displayName: signedIn.displayName, email: signedIn.email });
    // Each sign-in gets a fresh session (no fixation); the one the browser had, if any, ends.
    const previous = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (previous) {
      const session = await deps.sessions.find(previous);
      if (session) await deps.sessions.end(session.key);
    }
    const { id, xsrfToken } = await deps.sessions.create(username, signedIn.principal.groups ?? [], signedIn.idToken);
    deps.users.recordLogin(username, (deps.now ?? (() => new Date()))(), signedIn.principal.groups ?? []);
    reply.header('set-cookie', [clearedFlowCookie(secure(deps)), ...sessionCookies(id, xsrfToken, secure(deps))]);
    return reply.redirect(pending!.returnTo, 303);
  } catch (error) {
    if (!isApiError(error)) throw error;
    noteForAudit(request, SIGN_IN_NOTES.failure, error.detail ?? error.message);
    request.log.info({ reason: error.detail }, 'OIDC sign-in refused');
    // A browser lands back on the sign-in page, which shows why; an API client gets the problem+json.
    if (wantsPage(request)) return backToSignIn(reply, error.detail);
    throw error;
  }
}

function backToSignIn(reply: FastifyReply, reason: string) {
  return reply.redirect(`${CONSOLE_SIGN_IN}?oidcError=${encodeURIComponent(reason)}`, 303);
}

/** The provider's refusals as 4xx problems (503 when it cannot be reached). */
async function refusalsAsApiErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof OidcSignInRefused)) throw error;
    if (error.status === 403) throw forbidden(error.message);
    if (error.status === 503) throw serviceUnavailable(error.message);
    throw badRequest(error.message);
  }
}

/** The console page to land on after signing in: one of this app's (as the sign-in page checks), else the console. */
function returnToOf(request: FastifyRequest): string {
  const asked = new URL(request.url, 'http://start').searchParams.get('redirect');
  return asked !== null && isConsolePath(asked) ? asked : '/console/';
}

/** The cookies are Secure when svc's own callback URL is https (behind a TLS proxy, the request itself may be http). */
function secure(deps: OidcLoginRouteDeps): boolean {
  return deps.signIn.settings.redirectUrl.startsWith('https:');
}

function wantsPage(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}
