import {
  AGGREGATE_TO_LABEL_PREFIX,
  ANONYMOUS_ROLE,
  AUDIT_GROUP,
  AUTHENTICATED_ROLE,
  BUILT_IN_LABEL,
  CONSOLE_GROUP,
  CONTENT_GROUP,
  DEPENDENCIES_ANNOTATION,
  DISPLAY_NAME_ANNOTATION,
  HIDDEN_LABEL,
  KIND,
  KUBERNETES_AUTHENTICATION_GROUP,
  KUBERNETES_AUTHORIZATION_GROUP,
  MODULE_ANNOTATION,
  PLUGIN_GROUP,
  type PolicyRule,
  PUBLIC_CONTENT_GROUP,
  ROLE_TEMPLATE_LABEL,
  SUPER_ROLE,
  UI_PERMISSIONS_ANNOTATION,
  USER_CONTENT_GROUP,
  USER_SECURITY_GROUP,
} from '@svc/plugin-api';
import { PLUGIN_MANAGEMENT_TEMPLATE } from '../authz/roles.js';
import type { RoleObject } from './models.js';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];

interface RoleSpec {
  name: string;
  displayName: string;
  rules: PolicyRule[];
  dependencies?: string[];
  template?: { module: string; ui?: string[]; hidden?: boolean; aggregateTo?: string[] };
  hidden?: boolean;
  /** UI permissions of a role that is not a template (what the console shows its holders). */
  ui?: string[];
}

function role(spec: RoleSpec): RoleObject {
  const labels: Record<string, string> = { [BUILT_IN_LABEL]: 'true' };
  const annotations: Record<string, string> = { [DISPLAY_NAME_ANNOTATION]: spec.displayName };
  if (spec.hidden) labels[HIDDEN_LABEL] = 'true';
  if (spec.dependencies) annotations[DEPENDENCIES_ANNOTATION] = JSON.stringify(spec.dependencies);
  if (spec.ui) annotations[UI_PERMISSIONS_ANNOTATION] = JSON.stringify(spec.ui);
  if (spec.template) {
    labels[ROLE_TEMPLATE_LABEL] = 'true';
    if (spec.template.hidden) labels[HIDDEN_LABEL] = 'true';
    for (const target of spec.template.aggregateTo ?? []) labels[`${AGGREGATE_TO_LABEL_PREFIX}${target}`] = 'true';
    annotations[MODULE_ANNOTATION] = spec.template.module;
    if (spec.template.ui) annotations[UI_PERMISSIONS_ANNOTATION] = JSON.stringify(spec.template.ui);
  }
  return {
    apiVersion: 'v1alpha1',
    kind: KIND.Role,
    metadata: { name: spec.name, labels, annotations },
    rules: spec.rules,
  };
}

/** A view and a manage template for one module; manage depends on view, so manage is never granted without view. */
function viewAndManage(module: string, key: string, view: PolicyRule[], manage: PolicyRule[]): RoleObject[] {
  return [
    role({
      name: `role-template-view-${key}`,
      displayName: `${module} view`,
      rules: view,
      template: { module, ui: [`system:${key}:view`] },
    }),
    role({
      name: `role-template-manage-${key}`,
      displayName: `${module} management`,
      rules: manage,
      dependencies: [`role-template-view-${key}`],
      template: { module, ui: [`system:${key}:manage`] },
    }),
  ];
}

/**
 * Plugins' view and manage templates. Viewing reads plugin state and logs. Managing installs, upgrades and enables
 * code that runs inside the server with all of its rights (and a UI in every console user's browser): its holder can
 * do anything, so the template depends on `super-role` and is exactly as hard to grant (only a super administrator
 * may bind it, depend on it or put it in a token: authz/escalation.ts).
 */
function pluginTemplates(): RoleObject[] {
  const [view, manage] = viewAndManage(
    'Plugins',
    'plugins',
    [
      { apiGroups: [PLUGIN_GROUP], resources: ['plugins'], verbs: READ },
      { apiGroups: [CONSOLE_GROUP], resources: ['plugins', 'plugins/logs'], verbs: ['get', 'list'] },
    ],
    [
      // Settings may hold a plugin's secrets (an API key): read and written by managers alone.
      { apiGroups: [PLUGIN_GROUP], resources: ['plugins', 'pluginsettings'], verbs: WRITE },
      { apiGroups: [PLUGIN_GROUP], resources: ['pluginsettings'], verbs: READ },
      { apiGroups: [CONSOLE_GROUP], resources: ['plugins', 'plugins/upgrade', 'plugins/plugin-state'], verbs: ['*'] },
    ],
  ) as [RoleObject, RoleObject];
  const annotations = manage.metadata.annotations!;
  annotations[DISPLAY_NAME_ANNOTATION] = 'Plugins management (super administrator)';
  annotations[DEPENDENCIES_ANNOTATION] = JSON.stringify([view.metadata.name, SUPER_ROLE]);
  if (manage.metadata.name !== PLUGIN_MANAGEMENT_TEMPLATE)
    throw new Error('the plugin management template was renamed');
  return [view, manage];
}

/**
 * The roles the service defines. Built-in roles (the seed's table) cannot be edited or deleted through the API and are
 * restored at every boot; the core templates are restored too. Self-service templates are hidden and aggregated into
 * `authenticated`, so every logged-in user holds them.
 */
export const BUILT_IN_ROLES: RoleObject[] = [
  role({
    name: SUPER_ROLE,
    displayName: 'Super administrator',
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ],
  }),
  role({
    name: ANONYMOUS_ROLE,
    displayName: 'Anonymous',
    hidden: true,
    rules: [
      // Signing in and out (authn/login-routes.ts): POST only.
      { nonResourceURLs: ['/login', '/logout'], verbs: ['post'] },
      // Console sign-in with the identity provider (authn/oidc-login-routes.ts): there and back, both GETs.
      { nonResourceURLs: ['/login/oidc', '/login/oidc/callback'], verbs: ['get'] },
      // Probes a load balancer sends (api/app.ts), and the version, as Kubernetes' public-info-viewer role allows;
      // discovery itself is public by route (api/discovery.ts). Reading only: a non-resource HEAD is the verb `head`.
      { nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version'], verbs: ['get', 'head'] },
      // The first-run setup: whether it is pending, and completing it with the printed link's token (authn/setup-routes.ts).
      { apiGroups: [CONSOLE_GROUP], resources: ['setup'], verbs: ['list', 'create'] },
      // Published posts are public.
      { apiGroups: [PUBLIC_CONTENT_GROUP], resources: ['posts'], verbs: ['get', 'list'] },
    ],
  }),
  role({ name: AUTHENTICATED_ROLE, displayName: 'Authenticated', hidden: true, rules: [] }),
  role({ name: 'guest', displayName: 'Guest', dependencies: [ANONYMOUS_ROLE, AUTHENTICATED_ROLE], rules: [] }),
  role({
    name: 'contributor',
    displayName: 'Contributor',
    dependencies: ['guest'],
    // The personal center's "My posts".
    ui: ['uc:posts:own'],
    rules: [
      { apiGroups: [USER_CONTENT_GROUP], resources: ['posts'], verbs: ['create', 'get', 'list', 'update', 'delete'] },
    ],
  }),
  role({
    name: 'author',
    displayName: 'Author',
    dependencies: ['contributor'],
    ui: ['uc:posts:publish'],
    rules: [{ apiGroups: [USER_CONTENT_GROUP], resources: ['posts/publish', 'posts/unpublish'], verbs: ['update'] }],
  }),
  role({
    name: 'editor',
    displayName: 'Post manager',
    dependencies: ['author'],
    // The console's "Posts".
    ui: ['system:posts:manage'],
    rules: [{ apiGroups: [CONTENT_GROUP], resources: ['posts', 'posts/status'], verbs: ['*'] }],
  }),
];

export const CORE_TEMPLATES: RoleObject[] = [
  ...viewAndManage(
    'Users',
    'users',
    [
      { apiGroups: [''], resources: ['users'], verbs: READ },
      { apiGroups: [CONSOLE_GROUP], resources: ['users'], verbs: ['list'] },
      { apiGroups: [CONSOLE_GROUP], resources: ['users/permissions'], verbs: ['get'] },
    ],
    [
      { apiGroups: [''], resources: ['users'], verbs: WRITE },
      {
        apiGroups: [CONSOLE_GROUP],
        resources: ['users', 'users/permissions', 'users/password'],
        verbs: ['create', 'update'],
      },
      // Assigning roles is picking them: reading the roles, and previewing what a choice of them amounts to.
      { apiGroups: [''], resources: ['roles'], verbs: READ },
      { apiGroups: [CONSOLE_GROUP], resources: ['effectivepermissions'], verbs: ['create'] },
    ],
  ),
  ...viewAndManage(
    'Roles',
    'roles',
    [
      { apiGroups: [''], resources: ['roles', 'rolebindings'], verbs: READ },
      // Where a role's rules come from (its dependencies, what aggregates into it) is part of reading it.
      { apiGroups: [CONSOLE_GROUP], resources: ['effectivepermissions'], verbs: ['create'] },
    ],
    [
      { apiGroups: [''], resources: ['roles', 'rolebindings'], verbs: WRITE },
      { apiGroups: [CONSOLE_GROUP], resources: ['accessreviews'], verbs: ['create'] },
    ],
  ),
  ...pluginTemplates(),
  ...viewAndManage(
    'Posts',
    'posts',
    [{ apiGroups: [CONTENT_GROUP], resources: ['posts'], verbs: READ }],
    [{ apiGroups: [CONTENT_GROUP], resources: ['posts', 'posts/status'], verbs: WRITE }],
  ),
  role({
    name: 'role-template-view-audit',
    displayName: 'Audit log view',
    // Who did what, when (docs/access-control.md "Audit"): events name users and what they reached.
    rules: [{ apiGroups: [AUDIT_GROUP], resources: ['events'], verbs: ['get', 'list'] }],
    template: { module: 'Audit', ui: ['system:audit:view'] },
  }),
  role({
    name: 'role-template-own-permissions',
    displayName: 'Own profile, permissions and password',
    rules: [
      { apiGroups: [CONSOLE_GROUP], resources: ['users'], resourceNames: ['-'], verbs: ['get'] },
      {
        apiGroups: [CONSOLE_GROUP],
        resources: ['users/permissions', 'users/console-events'],
        resourceNames: ['-'],
        verbs: ['get'],
      },
      // The console loads the UIs of started plugins for everyone; each route's permissions decide what shows.
      { apiGroups: [CONSOLE_GROUP], resources: ['plugins/uis'], resourceNames: ['-'], verbs: ['get'] },
      { apiGroups: [CONSOLE_GROUP], resources: ['users/password'], resourceNames: ['-'], verbs: ['update'] },
      // The models one may browse: an answer about one's own access only.
      { apiGroups: [CONSOLE_GROUP], resources: ['models'], verbs: ['list'] },
      // kubectl auth can-i and whoami: questions about one's own access and identity, as Kubernetes' basic-user.
      {
        apiGroups: [KUBERNETES_AUTHORIZATION_GROUP],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
      { apiGroups: [KUBERNETES_AUTHENTICATION_GROUP], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ],
    template: { module: 'Self-service', hidden: true, aggregateTo: [AUTHENTICATED_ROLE] },
  }),
  role({
    name: 'role-template-own-tokens',
    displayName: 'Own personal access tokens',
    rules: [
      {
        apiGroups: [USER_SECURITY_GROUP],
        resources: ['personalaccesstokens', 'personalaccesstokens/revocation'],
        verbs: ['*'],
      },
    ],
    template: { module: 'Self-service', hidden: true, aggregateTo: [AUTHENTICATED_ROLE] },
  }),
];

export const SYSTEM_ROLE_NAMES = new Set([...BUILT_IN_ROLES, ...CORE_TEMPLATES].map((r) => r.metadata.name));
