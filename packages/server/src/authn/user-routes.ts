import { CONSOLE_API, type FieldError, forbidden, invalid, notFound } from '@svc/plugin-api';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { callerOf, type HttpContext, JSON_TYPE } from '../api/http-context.js';
import type { Principal } from '../authz/principal.js';
import type { ObjectService } from '../registry/object-service.js';
import type { Authenticator } from './authenticator.js';
import type { Credentials } from './credentials.js';
import type { LoginLimiter } from './login-limiter.js';
import type { UserSpec } from './models.js';
import { checkPasswordRules, MIN_PASSWORD_LENGTH } from './passwords.js';
import type { RoleManagement } from './ports.js';
import type { Sessions } from './sessions.js';
import type { PersonalAccessTokens } from './tokens.js';
import type { UserDirectory } from './user-directory.js';

export interface ConsoleUserRouteDeps {
  authenticator: Authenticator;
  objects: ObjectService;
  users: UserDirectory;
  credentials: Credentials;
  sessions: Sessions;
  limiter: LoginLimiter;
  tokens: PersonalAccessTokens;
  /** Role management, read at each request: it is provided after these routes are made (authn/ports.ts). */
  management: RoleManagement;
  onBackgroundError?: (error: unknown) => void;
}

const BASE = `${CONSOLE_API}/users`;

/**
 * The console's user endpoints that need passwords (docs/api.md "Security"): create a user, change one's own
 * password, and reset another user's. Mounted as core routes; the authorization hook has allowed the request before
 * they run.
 */
// The bodies of the routes below, for the OpenAPI documents (the handlers check them, with their own messages).
const PASSWORD = { type: 'string', minLength: MIN_PASSWORD_LENGTH };
const NEW_USER = {
  type: 'object',
  required: ['name', 'password'],
  properties: {
    name: { type: 'string' },
    password: PASSWORD,
    email: { type: 'string' },
    displayName: { type: 'string' },
    roles: { type: 'array', items: { type: 'string' } },
  },
};
const OWN_PASSWORD = {
  type: 'object',
  required: ['oldPassword', 'password'],
  properties: { oldPassword: { type: 'string' }, password: PASSWORD },
};
const NEW_PASSWORD = { type: 'object', required: ['password'], properties: { password: PASSWORD } };

export function consoleUserRoutes(deps: ConsoleUserRouteDeps): DynamicRoute<HttpContext>[] {
  const caller = async (ctx: HttpContext): Promise<Principal & { username: string }> => {
    const principal = callerOf(ctx.request);
    if (!principal.username) throw deps.authenticator.challenge('sign in first');
    return principal as Principal & { username: string };
  };
  return [
    {
      method: 'GET',
      path: `${BASE}/-`,
      owner: 'core',
      doc: { summary: 'Your own User object (display name, e-mail, last sign-in)' },
      handler: async (ctx) => ownUser(deps, ctx, await caller(ctx)),
    },
    {
      method: 'POST',
      path: BASE,
      owner: 'core',
      // A taken name is a 409.
      doc: { summary: 'Create a user', requestBody: NEW_USER, status: 201, errors: [409] },
      handler: async (ctx) => createUser(deps, ctx, await caller(ctx)),
    },
    {
      method: 'PUT',
      path: `${BASE}/-/password`,
      owner: 'core',
      doc: { summary: 'Change your own password (ends your other sessions)', requestBody: OWN_PASSWORD },
      handler: async (ctx) => changeOwnPassword(deps, ctx, await caller(ctx)),
    },
    {
      method: 'PUT',
      path: `${BASE}/:name/password`,
      owner: 'core',
      doc: { summary: "Reset a user's password (ends all their sessions)", requestBody: NEW_PASSWORD },
      handler: async (ctx, params) => resetPassword(deps, ctx, await caller(ctx), params.name!),
    },
  ];
}

/** The personal center's profile: every signed-in user reads their own User object, whatever else they may read. */
async function ownUser(deps: ConsoleUserRouteDeps, ctx: HttpContext, actor: Principal & { username: string }) {
  const user = await deps.objects.get(deps.users.served, deps.users.objectNameOf(actor.username));
  return ctx.reply.type(JSON_TYPE).send(JSON.stringify(user));
}

async function createUser(deps: ConsoleUserRouteDeps, ctx: HttpContext, actor: Principal) {
  const body = objectBody(ctx);
  const errors: FieldError[] = [];
  if (typeof body.name !== 'string' || body.name === '') errors.push({ path: '/name', message: 'is required' });
  for (const field of ['email', 'displayName'] as const) {
    if (body[field] !== undefined && typeof body[field] !== 'string')
      errors.push({ path: `/${field}`, message: 'must be a string' });
  }
  const roles = body.roles;
  if (roles !== undefined && (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string' || r === ''))) {
    errors.push({ path: '/roles', message: 'must be an array of role names' });
  }
  if (errors.length > 0)
    throw invalid(`the user is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
  const password = checkPasswordRules(body.password);
  const name = body.name as string;
  if (Array.isArray(roles) && roles.length > 0 && !deps.management.setUserRoles) {
    throw invalid('roles cannot be assigned: role management is not available', [
      { path: '/roles', message: 'cannot be set' },
    ]);
  }

  const spec: UserSpec = {};
  if (typeof body.displayName === 'string') spec.displayName = body.displayName;
  if (typeof body.email === 'string') spec.email = body.email;
  const served = deps.users.served;
  const user = { apiVersion: served.model.apiVersion, kind: served.model.kind, metadata: { name }, spec };
  const written = await deps.objects.create(served, user, { actor: { kind: 'user', principal: actor } });
  try {
    await deps.credentials.setPassword(name, password);
    if (Array.isArray(roles) && roles.length > 0)
      await deps.management.setUserRoles!({ kind: 'user', principal: actor }, name, roles as string[]);
  } catch (error) {
    // All or nothing: a user whose roles were refused (escalation) is not left behind half made.
    await deps.credentials.remove(name).catch(deps.onBackgroundError);
    await deps.objects.delete(served, name).catch(deps.onBackgroundError);
    throw error;
  }
  ctx.reply.header('location', `/api/${served.model.version}/${served.model.plural}/${name}`);
  return ctx.reply.code(201).type(JSON_TYPE).send(written.bytes);
}

async function changeOwnPassword(
  deps: ConsoleUserRouteDeps,
  ctx: HttpContext,
  actor: Principal & { username: string },
) {
  const body = objectBody(ctx);
  if (typeof body.oldPassword !== 'string' || body.oldPassword === '') {
    throw invalid('oldPassword is required', [{ path: '/oldPassword', message: 'is required' }]);
  }
  refuseExternal(deps, deps.users.objectNameOf(actor.username));
  const password = checkPasswordRules(body.password);
  // The old password is a password check like a login: limited the same way, or this becomes a guessing oracle.
  const verified = await deps.limiter.attempt(ctx.request.ip, actor.username, () =>
    deps.credentials.verify(actor.username, body.oldPassword as string),
  );
  if (!verified) {
    throw invalid('oldPassword is not your current password', [
      { path: '/oldPassword', message: 'is not your current password' },
    ]);
  }
  await deps.credentials.setPassword(actor.username, password);
  // Whoever else held a session of this user (perhaps the reason for the change) is signed out; this session stays.
  await deps.sessions.endSessionsOf(actor.username, actor.via === 'session' ? actor.sessionId : undefined);
  return ctx.reply.code(204).send();
}

/**
 * An administrator's reset: whoever knew the old password, or held a session or a token, is out. The user's own tokens
 * are revoked (not deleted, so they can see what went) and every session ends.
 */
async function resetPassword(deps: ConsoleUserRouteDeps, ctx: HttpContext, actor: Principal, username: string) {
  const body = objectBody(ctx);
  const password = checkPasswordRules(body.password);
  if (!deps.users.exists(username)) throw notFound(`User "${username}" not found`);
  refuseExternal(deps, username);
  // Setting someone's password hands over their account: only for those who hold all they hold.
  deps.management.manageUser({ kind: 'user', principal: actor }, username, 'reset the password of');
  await deps.credentials.setPassword(username, password);
  await deps.sessions.endSessionsOf(username);
  await deps.tokens.revokeAllOf(username);
  return ctx.reply.code(204).send();
}

/** An identity provider's user signs in there: a password of svc's would be a second way into their account. */
function refuseExternal(deps: ConsoleUserRouteDeps, objectName: string): void {
  if (deps.users.isExternal(objectName)) {
    throw forbidden(
      `user "${deps.users.usernameOf(objectName)}" signs in with the identity provider; svc keeps no password for them`,
    );
  }
}

function objectBody(ctx: HttpContext): Record<string, unknown> {
  const body = ctx.request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the body must be a JSON object');
  return body as Record<string, unknown>;
}
