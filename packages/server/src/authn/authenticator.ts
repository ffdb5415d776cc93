import { type ApiError, forbidden, unauthorized } from '@svc/plugin-api';
import type { FastifyRequest } from 'fastify';
import type { BasicCredentials } from './basic-auth.js';
import { readCookie, SESSION_COOKIE, XSRF_HEADER } from './cookies.js';
import { sameOrigin } from './origin.js';

export { sameOrigin } from './origin.js';

import { ANONYMOUS, type Principal } from '../authz/principal.js';
import { OidcTokenRefused, OidcTokens } from './oidc-tokens.js';
import type { Sessions } from './sessions.js';
import { type PersonalAccessTokens, TOKEN_PREFIX } from './tokens.js';
import type { UserDirectory } from './user-directory.js';

export interface AuthenticatorDeps {
  sessions: Sessions;
  tokens: PersonalAccessTokens;
  users: UserDirectory;
  /** Present only when HTTP Basic is turned on (SVC_BASIC_AUTH). */
  basic?: BasicCredentials;
  /** Present only when single sign-on is set up (SVC_OIDC_ISSUER_URL): the provider's ID tokens as bearer tokens. */
  oidc?: OidcTokens;
}

export interface Authenticator {
  /**
   * Who is calling: the anonymous principal when the request carries no credentials. Throws a 401 ApiError (with
   * `WWW-Authenticate`) for bad, expired or revoked credentials, a 403 for a cookie-authenticated unsafe request
   * without the right CSRF token, and a 429 when Basic sign-ins from this client or for this user are rate limited.
   * Reads no body, so it runs in `onRequest`.
   */
  authenticate(request: FastifyRequest): Promise<Principal>;
  /** A 401 for a request that needs credentials, with the `WWW-Authenticate` challenges this server accepts. */
  challenge(detail: string): ApiError;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Paths whose handlers deal with the session cookie themselves: a stale cookie must not stop a new login. */
const LOGIN_PATH = '/login';
/** Console sign-in with the provider (oidc-login-routes.ts): anonymous as `/login` is. */
const OIDC_LOGIN_PATHS = new Set(['/login/oidc', '/login/oidc/callback']);
const LOGOUT_PATH = '/logout';

export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const { sessions, tokens, users, basic, oidc } = deps;
  const challenges = basic ? 'Bearer realm="svc", Basic realm="svc"' : 'Bearer realm="svc"';
  const refuse = (detail: string, header = challenges) =>
    unauthorized(detail).withHeaders({ 'www-authenticate': header });

  async function fromAuthorization(header: string, request: FastifyRequest): Promise<Principal> {
    const space = header.indexOf(' ');
    const scheme = (space === -1 ? header : header.slice(0, space)).toLowerCase();
    const credentials = space === -1 ? '' : header.slice(space + 1).trim();
    if (scheme === 'bearer') {
      if (oidc && OidcTokens.looksLikeJwt(credentials)) return fromIdToken(oidc, credentials);
      const principal = credentials.startsWith(TOKEN_PREFIX) ? tokens.authenticate(credentials) : undefined;
      if (principal) return principal;
      throw refuse('the access token is invalid, expired or revoked', 'Bearer realm="svc", error="invalid_token"');
    }
    if (scheme === 'basic') {
      if (!basic)
        throw refuse('HTTP Basic authentication is turned off on this server; use a session or an access token');
      const outcome = await basic.authenticate(credentials, request.ip);
      if ('username' in outcome) return { username: outcome.username, via: 'basic' };
      throw refuse(
        outcome.failure === 'malformed' ? 'the Basic credentials are malformed' : 'invalid username or password',
        'Basic realm="svc"',
      );
    }
    throw refuse(`authorization scheme "${scheme}" is not supported; use Bearer with an access token`);
  }

  async function fromIdToken(oidc: OidcTokens, token: string): Promise<Principal> {
    try {
      const principal = await oidc.authenticate(token);
      // The groups the provider gives now, on their User object when they have one (a write only when they changed).
      users.noteProviderGroups(principal.username!, principal.groups ?? []);
      return principal;
    } catch (error) {
      if (!(error instanceof OidcTokenRefused)) throw error;
      throw refuse(error.message, 'Bearer realm="svc", error="invalid_token"');
    }
  }

  async function fromSession(id: string, request: FastifyRequest, path: string): Promise<Principal> {
    const session = await sessions.find(id);
    if (!session || !users.isActive(session.username)) {
      // Logging out with a dead session is not an error: the cookies get cleared either way.
      if (path === LOGOUT_PATH) return ANONYMOUS;
      throw refuse('the session has ended or is not valid; sign in again');
    }
    if (!SAFE_METHODS.has(request.method) && !sessions.checkXsrf(session, headerValue(request, XSRF_HEADER))) {
      throw forbidden(
        `a cookie-authenticated ${request.method} needs the CSRF token: send header X-XSRF-TOKEN with the value of the XSRF-TOKEN cookie`,
      );
    }
    // A browser attaches cookies to a cross-site WebSocket handshake; only the console's own origin may use them.
    if (request.headers.upgrade?.toLowerCase() === 'websocket' && !sameOrigin(request)) {
      throw forbidden("a cookie-authenticated WebSocket must come from this server's own origin");
    }
    // An OIDC sign-in's session carries the groups its ID token named, as the token itself would.
    if (session.groups)
      return { username: session.username, via: 'session', sessionId: session.key, groups: session.groups };
    return { username: session.username, via: 'session', sessionId: session.key };
  }

  const authenticator: Authenticator = {
    async authenticate(request) {
      const path = pathOf(request.url);
      // Signing in replaces whatever credentials came along; the login handler checks its own.
      if (path === LOGIN_PATH || OIDC_LOGIN_PATHS.has(path)) return ANONYMOUS;
      const authorization = request.headers.authorization;
      if (authorization !== undefined && authorization !== '') return fromAuthorization(authorization, request);
      const id = readCookie(request.headers.cookie, SESSION_COOKIE);
      if (id !== undefined && id !== '') return fromSession(id, request, path);
      return ANONYMOUS;
    },
    challenge: (detail) => refuse(detail),
  };
  return authenticator;
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  let path = q === -1 ? url : url.slice(0, q);
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
