import { randomBytes } from 'node:crypto';
import { isApiError } from '@svc/plugin-api';
import type { Logger } from 'pino';
import { nameProblems } from '../objects/names.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { Credentials } from './credentials.js';
import { MIN_PASSWORD_LENGTH } from './passwords.js';
import type { UserDirectory } from './user-directory.js';

export const SUPER_ROLE = 'super-role';

export interface SuperAdministratorDeps {
  registry: ModelRegistry;
  objects: ObjectService;
  users: UserDirectory;
  credentials: Credentials;
  logger: Logger;
  username: string;
  /** Unset: a password is generated and shown once through `announce`. */
  password?: string;
  /** Where a generated password is shown: standard output by default, never the log. */
  announce?: (text: string) => void;
}

export interface SuperAdministratorResult {
  created: boolean;
  username: string;
  /** Set when the password was generated (and announced). */
  generatedPassword?: string;
}

/**
 * First boot (docs/api.md "Settings"): when the store holds no user, creates the super administrator and binds it to
 * `super-role`. Role models and built-in roles must be registered first. The User object is written last: it is the
 * mark that this step completed, so a boot interrupted half way simply does it again.
 */
export async function ensureSuperAdministrator(deps: SuperAdministratorDeps): Promise<SuperAdministratorResult> {
  const { username } = deps;
  if (deps.users.size > 0) return { created: false, username };
  const problems = nameProblems(username);
  if (problems.length > 0)
    throw new Error(`SVC_ADMIN_USERNAME "${username}" is not a valid username: ${problems.join('; ')}`);
  if (deps.password !== undefined && deps.password.length < MIN_PASSWORD_LENGTH) {
    throw new Error(`SVC_ADMIN_PASSWORD must be at least ${MIN_PASSWORD_LENGTH} characters long`);
  }
  const bindings = deps.registry.findByKind('v1alpha1', 'RoleBinding');
  if (!bindings) throw new Error('the RoleBinding model must be registered before the super administrator is created');

  await tolerateExisting(() =>
    deps.objects.create(bindings, {
      apiVersion: 'v1alpha1',
      kind: 'RoleBinding',
      metadata: { name: `${username}-${SUPER_ROLE}` },
      roleRef: { apiGroup: '', kind: 'Role', name: SUPER_ROLE },
      subjects: [{ apiGroup: '', kind: 'User', name: username }],
    }),
  );
  const generatedPassword = deps.password === undefined ? randomBytes(18).toString('base64url') : undefined;
  await deps.credentials.setPassword(username, deps.password ?? generatedPassword!);
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
  if (generatedPassword) {
    // Shown once, on standard output only: a log line would keep the password wherever logs are shipped.
    const announce = deps.announce ?? ((text: string) => void process.stdout.write(text));
    announce(
      `\nsvc: created the super administrator "${username}" with a generated password:\n\n    ${generatedPassword}\n\n` +
        'It is shown only this once. Sign in and change it, or set SVC_ADMIN_PASSWORD before the first start.\n\n',
    );
  }
  return { created: true, username, generatedPassword };
}

async function tolerateExisting(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(isApiError(error) && error.status === 409)) throw error;
  }
}
