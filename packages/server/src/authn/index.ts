import {
  CREDENTIALS_RECORDS,
  forbidden,
  SESSIONS_RECORDS,
  SIGN_IN_FAILURES_RECORDS,
  TOKEN_DIGESTS_RECORDS,
} from '@svc/plugin-api';
import type { Logger } from 'pino';
import type { DynamicRoute } from '../api/dynamic-router.js';
import type { HttpContext } from '../api/http-context.js';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { Store } from '../store/types.js';
import { type Authenticator, createAuthenticator } from './authenticator.js';
import { BasicCredentials } from './basic-auth.js';
import { Credentials } from './credentials.js';
import { FirstRunSetup } from './first-run.js';
import { DEFAULT_LOGIN_LIMITS, type LoginClock, LoginLimiter, type LoginLimits } from './login-limiter.js';
import { loginRoutes } from './login-routes.js';
import { personalAccessTokenModel, userModel } from './models.js';
import type { Oidc } from './oidc.js';
import { PasswordHasher } from './passwords.js';
import type { ManageUser, RoleManagement } from './ports.js';
import { type SessionPolicy, Sessions } from './sessions.js';
import { setupRoutes } from './setup-routes.js';
import { SharedSignInFailures } from './shared-failures.js';
import { ensureSuperAdministrator, type SuperAdministratorResult } from './super-admin.js';
import { tokenRoutes } from './token-routes.js';
import { PersonalAccessTokens } from './tokens.js';
import { UserDirectory } from './user-directory.js';
import { consoleUserRoutes } from './user-routes.js';

export { type Authenticator, createAuthenticator } from './authenticator.js';
export type { ManageUser, RoleManagement, RolesOf, SetUserRoles } from './ports.js';
export { ensureSuperAdministrator } from './super-admin.js';

export interface AuthenticationSettings extends SessionPolicy {
  basicAuth: boolean;
  localSignIn: boolean;
  adminUsername: string;
  adminPassword?: string;
}

export interface AuthenticationDeps {
  store: Store;
  registry: ModelRegistry;
  objects: ObjectService;
  logger: Logger;
  settings: AuthenticationSettings;
  /** Tests only: cheaper hashing, other sign-in limits, or a clock whose sleeps the test sees. */
  hasher?: PasswordHasher;
  limits?: Partial<LoginLimits>;
  loginClock?: Partial<LoginClock>;
  /** Tests only: the clock the first-run setup link expires by. */
  setupClock?: () => number;
  /** The provider's ID tokens and console sign-in, when single sign-on is set up (oidc.ts). */
  oidc?: Oidc;
}

/** Everything authentication offers the composition root. */
export interface Authentication {
  authenticator: Authenticator;
  users: UserDirectory;
  credentials: Credentials;
  sessions: Sessions;
  tokens: PersonalAccessTokens;
  /** The sign-in throttle every password check goes through. */
  limiter: LoginLimiter;
  /** The first-run setup: its link, while no user exists and none was made from SVC_ADMIN_PASSWORD. */
  setup: FirstRunSetup;
  /** Core routes for the runtime router: first-run setup, console user endpoints and personal access tokens. */
  routes(): DynamicRoute<HttpContext>[];
  /** A Fastify plugin with `POST /login` and `POST /logout`: `app.register(auth.loginRoutes)`. */
  loginRoutes: ReturnType<typeof loginRoutes>;
  /**
   * First boot: creates the super administrator from SVC_ADMIN_PASSWORD, or without one opens the first-run setup.
   * Then, whatever happened, SVC_ADMIN_PASSWORD is deleted from the process environment. Call once the Role and
   * RoleBinding models and built-in roles exist.
   */
  ensureSuperAdministrator(): Promise<SuperAdministratorResult>;
  /**
   * Role management, once RBAC provides it (it needs these users first): binding roles when a user is created with
   * some, and whether an actor may act on another user. Without it only the service may.
   */
  useRoleManagement(management: RoleManagement): void;
  /** Ends every session of a user (for instance when their roles change). */
  endSessionsOf(username: string): Promise<void>;
  /** Stops the background sweep of expired sessions. */
  close(): void;
}

const SWEEP_INTERVAL_MS = 60 * 60_000;

/** Without role management nobody's permissions can be compared, so no user may act on another. */
const refuseManagingUsers: ManageUser = (actor, target, action) => {
  if (actor.kind === 'user')
    throw forbidden(`you may not ${action} user "${target}": role management is not available`);
};

/**
 * Registers the User and PersonalAccessToken models and builds the authentication services around them. Call before
 * any request is served; the returned pieces are mounted by main.ts.
 */
export async function setupAuthentication(deps: AuthenticationDeps): Promise<Authentication> {
  const { store, registry, objects, logger, settings } = deps;
  const onBackgroundError = (error: unknown) => logger.error({ err: error }, 'authentication background write failed');
  const userServed = await registry.register(normalizeModelDefinition(userModel, { kind: 'system' }), 'core');
  const tokenServed = await registry.register(
    normalizeModelDefinition(personalAccessTokenModel, { kind: 'system' }),
    'core',
  );

  const users = new UserDirectory(userServed, objects, onBackgroundError);
  await users.start();
  // Replicas of a shared store count each other's sign-in failures (shared-failures.ts).
  const sharedFailures = store.shared
    ? new SharedSignInFailures(
        store.secrets,
        { ...DEFAULT_LOGIN_LIMITS, ...deps.limits }.windowMs,
        deps.loginClock?.now ?? Date.now,
        (key) => limiter.forgetHere(key),
        onBackgroundError,
      )
    : undefined;
  await sharedFailures?.reload();
  const limiter = new LoginLimiter(deps.limits, deps.loginClock, sharedFailures);
  const credentials = new Credentials(store, deps.hasher ?? new PasswordHasher());
  const sessions = new Sessions(store, settings, onBackgroundError);
  // Role management arrives later (useRoleManagement); tokens ask for it when one is made.
  const management: RoleManagement = { manageUser: refuseManagingUsers };
  const tokens = new PersonalAccessTokens(tokenServed, {
    store,
    objects,
    users,
    rolesOf: () => management.rolesOf,
    onBackgroundError,
  });
  await tokens.start();
  const basic = settings.basicAuth ? new BasicCredentials(credentials, users, limiter) : undefined;
  const authenticator = createAuthenticator({ sessions, tokens, users, basic, oidc: deps.oidc?.tokens });

  // A removed or disabled user is signed out everywhere; a removed user's password goes too.
  users.onLostAccess((username, event) => {
    void sessions.endSessionsOf(username).catch(onBackgroundError);
    if (event === 'removed') void credentials.remove(username).catch(onBackgroundError);
  });
  // Other servers of a shared store change secret records too: caches of them follow the store's notices.
  const stopFollowing = store.listen((notice) => {
    if (notice.type === 'reset') {
      sessions.forgetCached();
      void tokens.reloadDigests().catch(onBackgroundError);
      void sharedFailures?.reload().catch(onBackgroundError);
    } else if (notice.type === 'secret') {
      if (notice.kind === SIGN_IN_FAILURES_RECORDS) sharedFailures?.heard(notice.name);
      if (notice.kind === SESSIONS_RECORDS) void sessions.changedElsewhere(notice.name).catch(onBackgroundError);
      else if (notice.kind === CREDENTIALS_RECORDS) credentials.changedElsewhere(notice.name);
      else if (notice.kind === TOKEN_DIGESTS_RECORDS)
        void tokens.digestChangedElsewhere(notice.name).catch(onBackgroundError);
    }
  });
  const setup = new FirstRunSetup(users, deps.setupClock);
  const superAdministrator = { registry, objects, users, credentials, logger };
  const sweep = setInterval(() => void sessions.sweep().catch(onBackgroundError), SWEEP_INTERVAL_MS);
  sweep.unref();

  return {
    authenticator,
    users,
    credentials,
    sessions,
    tokens,
    limiter,
    setup,
    routes: () => [
      ...setupRoutes({
        ...superAdministrator,
        setup,
        sessions,
        signInOptions: {
          localSignIn: settings.localSignIn,
          ...(deps.oidc?.signIn ? { oidc: { name: deps.oidc.signIn.settings.providerName } } : {}),
        },
      }),
      ...consoleUserRoutes({
        authenticator,
        objects,
        users,
        credentials,
        sessions,
        tokens,
        limiter,
        management,
        onBackgroundError,
      }),
      ...tokenRoutes({ authenticator, objects, tokens }),
    ],
    loginRoutes: loginRoutes({
      authenticator,
      sessions,
      credentials,
      users,
      limiter,
      localSignIn: settings.localSignIn,
      oidc: deps.oidc?.signIn && { signIn: deps.oidc.signIn, objects },
    }),
    ensureSuperAdministrator: async () => {
      try {
        const result = await ensureSuperAdministrator({
          ...superAdministrator,
          username: settings.adminUsername,
          password: settings.adminPassword,
        });
        if (result.setupPending) setup.open();
        return result;
      } finally {
        // Used, or not needed (users exist): the bootstrap password leaves the environment, where plugin code and
        // any process this one starts would find it. Nothing reads it after this step.
        delete process.env.SVC_ADMIN_PASSWORD;
      }
    },
    useRoleManagement: (provided) => void Object.assign(management, provided),
    endSessionsOf: async (username) => void (await sessions.endSessionsOf(username)),
    close: () => {
      clearInterval(sweep);
      sharedFailures?.close();
      stopFollowing();
    },
  };
}
