import { CONSOLE_API, type FieldError, forbidden, invalid, isApiError } from '@svc/plugin-api';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { type HttpContext, JSON_TYPE } from '../api/http-context.js';
import { nameProblems } from '../objects/names.js';
import { sessionCookies } from './cookies.js';
import type { FirstRunSetup } from './first-run.js';
import { sameOrigin } from './origin.js';
import { checkPasswordRules, MIN_PASSWORD_LENGTH } from './passwords.js';
import type { Sessions } from './sessions.js';
import { createSuperAdministrator, type SuperAdministratorDeps } from './super-admin.js';

export const SETUP_PATH = `${CONSOLE_API}/setup`;

const SETUP_BODY = {
  type: 'object',
  required: ['token', 'username', 'password'],
  properties: {
    token: { type: 'string', description: 'the token of the setup link svc printed' },
    username: { type: 'string' },
    password: { type: 'string', minLength: MIN_PASSWORD_LENGTH },
  },
};
const SETUP_STATE = {
  type: 'object',
  required: ['pending', 'localSignIn'],
  properties: {
    pending: { type: 'boolean' },
    localSignIn: { type: 'boolean', description: 'false: sign-in with a password is off (SVC_LOCAL_SIGN_IN)' },
    oidc: {
      type: 'object',
      description: 'present when the console offers sign-in with the identity provider',
      properties: { name: { type: 'string', description: 'the provider, as the sign-in button names it' } },
    },
  },
};

/** How one may sign in, for the console's sign-in page. */
export interface SignInOptions {
  localSignIn: boolean;
  oidc?: { name: string };
}

/**
 * The first-run setup's routes (docs/api.md "First run"), public through the built-in `anonymous` role: whether setup
 * is pending (nothing else), and completing it with the printed link's token, which creates the super administrator
 * and signs them in.
 */
export function setupRoutes(
  deps: SuperAdministratorDeps & { setup: FirstRunSetup; sessions: Sessions; signInOptions: SignInOptions },
): DynamicRoute<HttpContext>[] {
  return [
    {
      method: 'GET',
      path: SETUP_PATH,
      owner: 'core',
      doc: {
        summary: 'Whether the first-run setup is pending (no user exists yet), and how one may sign in',
        response: SETUP_STATE,
      },
      handler: (ctx) =>
        ctx.reply.type(JSON_TYPE).send(JSON.stringify({ pending: deps.setup.pending, ...deps.signInOptions })),
    },
    {
      method: 'POST',
      path: SETUP_PATH,
      owner: 'core',
      doc: {
        summary: 'Create the super administrator with the setup link’s token, once, and sign them in',
        requestBody: SETUP_BODY,
        response: { type: 'object', properties: { username: { type: 'string' } } },
        status: 201,
        // Once the setup is done.
        errors: [409],
      },
      handler: (ctx) => completeSetup(deps, ctx),
    },
  ];
}

async function completeSetup(
  deps: SuperAdministratorDeps & { setup: FirstRunSetup; sessions: Sessions },
  { request, reply }: HttpContext,
) {
  // As for sign-in: another site must not make this browser the administrator of a server it set up.
  if (!sameOrigin(request)) throw forbidden("setup requests must come from this server's own origin");
  const { token, username, password } = readSetup(request.body);
  await deps.setup.complete(token, () => createSuperAdministrator(deps, username, password));
  const { id, xsrfToken } = await deps.sessions.create(username);
  deps.users.recordLogin(username, new Date());
  reply.header('set-cookie', sessionCookies(id, xsrfToken, request.protocol === 'https'));
  reply.header('cache-control', 'no-store');
  return reply.code(201).type(JSON_TYPE).send(JSON.stringify({ username }));
}

/** Every field's problems at once, so the setup form can show each at its field. */
function readSetup(body: unknown): { token: string; username: string; password: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('send {"token", "username", "password"} as JSON');
  }
  const fields = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (typeof fields.token !== 'string' || fields.token === '') errors.push({ path: '/token', message: 'is required' });
  if (typeof fields.username !== 'string' || fields.username === '') {
    errors.push({ path: '/username', message: 'is required' });
  } else {
    for (const problem of nameProblems(fields.username)) errors.push({ path: '/username', message: problem });
  }
  try {
    checkPasswordRules(fields.password);
  } catch (error) {
    if (!isApiError(error)) throw error;
    errors.push(...(error.errors ?? []));
  }
  if (errors.length > 0) {
    throw invalid(`the setup is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
  }
  return { token: fields.token as string, username: fields.username as string, password: fields.password as string };
}
