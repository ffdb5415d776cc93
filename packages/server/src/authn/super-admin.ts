import { isApiError, KIND, SUPER_ROLE } from '@svc/plugin-api';
import type { Logger } from 'pino';
import { nameProblems } from '../objects/names.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { Credentials } from './credentials.js';
import { MIN_PASSWORD_LENGTH } from './passwords.js';
import type { UserDirectory } from './user-directory.js';

export interface SuperAdministratorDeps {
  registry: ModelRegistry;
  objects: ObjectService;
  users: UserDirectory;
  credentials: Credentials;
  logger: Logger;
}

export interface SuperAdministratorResult {
  created: boolean;
  username: string;
  /** No user exists and no password was given: the console's setup page creates the administrator (first-run.ts). */
  setupPending: boolean;
}

/**
 * First boot (docs/api.md "Settings"): when the store holds no user and a password is given (SVC_ADMIN_PASSWORD),
 * creates the super administrator. Without a password nothing is created: the first-run setup link does it. Role
 * models and built-in roles must be registered first.
 */
export async function ensureSuperAdministrator(
  deps: SuperAdministratorDeps & { username: string; password?: string },
): Promise<SuperAdministratorResult> {
  const { username, password } = deps;
  if (deps.users.size > 0) return { created: false, username, setupPending: false };
  const problems = nameProblems(username);
  if (problems.length > 0)
    throw new Error(`SVC_ADMIN_USERNAME "${username}" is not a valid username: ${problems.join('; ')}`);
  if (password === undefined) return { created: false, username, setupPending: true };
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new Error(`SVC_ADMIN_PASSWORD must be at least ${MIN_PASSWORD_LENGTH} characters long`);
  }
  await createSuperAdministrator(deps, username, password);
  return { created: true, username, setupPending: false };
}

/**
 * Creates a super administrator: the binding to `super-role`, the password, then the User object. The User object is
 * written last: it is the mark that this step completed, so a first boot (or setup) interrupted half way simply does
 * it again. The caller has checked the username and the password.
 */
export async function createSuperAdministrator(
  deps: SuperAdministratorDeps,
  username: string,
  password: string,
): Promise<void> {
  const bindings = deps.registry.findByKind('v1alpha1', KIND.RoleBinding);
  if (!bindings) throw new Error('the RoleBinding model must be registered before the super administrator is created');

  await tolerateExisting(() =>
    deps.objects.create(bindings, {
      apiVersion: 'v1alpha1',
      kind: KIND.RoleBinding,
      metadata: { name: `${username}-${SUPER_ROLE}` },
      roleRef: { apiGroup: '', kind: KIND.Role, name: SUPER_ROLE },
      subjects: [{ apiGroup: '', kind: KIND.User, name: username }],
    }),
  );
  await deps.credentials.setPassword(username, password);
  const served = deps.users.served;
  await tolerateExisting(() =>
    deps.objects.create(served, {
      apiVersion: served.model.apiVersion,
      kind: served.model.kind,
      metadata: { name: username },
      spec: { displayName: 'Super administrator' },
    }),
  );
  deps.logger.info({ username }, 'created the super administrator');
}

async function tolerateExisting(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(isApiError(error) && error.status === 409)) throw error;
  }
}
