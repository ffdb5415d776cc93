import { httpRef } from '../api/module.js';
import { CredentialFollower } from '../authn/credential-follower.js';
import { authnRef } from '../authn/module.js';
import type { ExpandedRoles } from '../authz/roles.js';
import { defineModule, ref } from '../kernel/module.js';
import { loggerRef } from '../kernel/root.js';
import { pluginOf } from '../objects/owner.js';
import { registryRef } from '../registry/module.js';
import { watchRef } from '../watch/module.js';
import { WatchAccess } from '../watch/watch-access.js';
import { createAttributeResolver, createAuthorizationHook } from './authorization-hook.js';
import { startRbac } from './boot.js';
import { ConsoleEvents } from './console-events.js';
import { DecisionCache, logDecisionCache } from './decision-cache.js';
import { mayListAnyModel, modelAccessRoutes } from './model-access-routes.js';
import { permissionRoutes } from './permission-routes.js';
import { SELF_REVIEW_RESOURCES, selfReviewRoutes } from './self-reviews.js';
import { uiPermissionsOf } from './ui-permissions.js';
import { installUserAdmission } from './user-admission.js';
import { userListRoutes } from './user-list-routes.js';
import { UserManagement } from './user-management.js';
import { createSetUserRoles } from './user-roles.js';

export type Roles = Awaited<ReturnType<typeof startRbac>>;
export const rolesRef = ref<Roles>('roles');

/**
 * Role and RoleBinding, the built-in roles restored as the service defines them, and the role service that follows
 * them. Before authentication, so that the super administrator can be bound to `super-role`, and before plugins, so
 * that the role templates a plugin declares can be created when it starts (bounded by the groups it owns).
 */
export const rolesModule = defineModule({
  name: 'roles',
  phase: 'boot',
  needs: { registry: registryRef },
  provides: rolesRef,
  start: ({ registry: { registry, objects, pluginGroups } }) =>
    startRbac(registry, objects, (plugin) => pluginGroups.of(plugin)),
});

export interface Access {
  /** The gate's decision cache (its hit rate is logged at debug level). */
  decisions: DecisionCache;
  /** Whether the expanded roles may browse some model (the console's Resources page). */
  mayBrowseModels(expanded: ExpandedRoles): boolean;
  /** Tells every open console that the set of plugin UIs changed (a plugin with a UI started or stopped). */
  pluginUisChanged(): void;
}

export const accessRef = ref<Access>('access');

/**
 * Who may do what, once roles and users both exist: the gate every request passes before its body is read (classify,
 * authenticate, authorize), managing users (role management for authentication, user admission), the first super
 * administrator, the permission routes, the watches that end when their caller loses access, and the console's events.
 */
export const accessModule = defineModule({
  name: 'access',
  phase: 'boot',
  needs: { roles: rolesRef, authn: authnRef, registry: registryRef, http: httpRef, watch: watchRef, logger: loggerRef },
  provides: accessRef,
  async start(
    { roles, authn, registry: { registry, objects }, http: { app, router, discover }, watch, logger },
    lifecycle,
  ) {
    const management = new UserManagement(roles.service, (username) => authn.users.isActive(username));
    // Local users' groups (User spec.groups): bindings to a group reach them too.
    roles.service.useLocalGroups((username) => authn.users.groupsOf(username));
    const stopFollowingGroups = authn.users.onGroupsChanged(() => roles.service.groupsChanged());
    lifecycle.onStop('services', stopFollowingGroups);
    const setUserRoles = createSetUserRoles(objects, roles.service, roles.bindings, management);
    authn.useRoleManagement({
      rolesOf: async (username) => roles.service.boundRoles(username),
      setUserRoles,
      manageUser: (actor, target, action) => management.checkMayManage(actor, target, action),
    });
    installUserAdmission({
      objects,
      roles: roles.service,
      management,
      users: authn.users.served,
      tokens: authn.tokens.served,
      roleModel: roles.roles,
      bindings: roles.bindings,
      groupMembers: (group) => authn.users.membersOf(group),
    });
    await authn.ensureSuperAdministrator();
    // Streams (watches, console events) end when their credential does, and hear when access may have changed.
    const credentials = new CredentialFollower({
      roles: roles.service,
      users: authn.users,
      sessions: authn.sessions,
      tokens: authn.tokens,
      passwords: authn.credentials,
      onError: (error) => logger.error({ err: error }, "following a stream's credential failed"),
    });
    watch.watches.checkAccessWith(new WatchAccess({ roles: roles.service, credentials }));
    const decisions = new DecisionCache();
    lifecycle.onStop('streams', logDecisionCache(decisions, logger));
    app.addHook(
      'onRequest',
      createAuthorizationHook({
        authenticate: (request) => authn.authenticator.authenticate(request),
        challenge: (detail) => authn.authenticator.challenge(detail),
        roles: roles.service,
        registry,
        router,
        decisions,
      }),
    );
    const modelAccess = { registry, roles: roles.service, attributesOf: createAttributeResolver(registry, router) };
    const mayBrowseModels = (expanded: ExpandedRoles) => mayListAnyModel(modelAccess, expanded);
    router.add(
      permissionRoutes({
        roles: roles.service,
        setUserRoles,
        userExists: async (username) => authn.users.exists(username),
        usernameOf: (objectName) => authn.users.usernameOf(objectName),
        endSessionsOf: async (username) => void (await authn.endSessionsOf(username)),
        attributesOf: modelAccess.attributesOf,
        mayBrowseModels,
      }),
    );
    // kubectl auth can-i / whoami: the plugin owning a group is the owner of any model or route in it.
    const ownerOf = (group: string, resource: string) =>
      registry.all().find((s) => s.model.group === group && s.model.plural === resource)?.owner ??
      router.list().find((r) => r.path.startsWith(`/apis/${group}/`))?.owner;
    router.add(
      selfReviewRoutes({
        roles: roles.service,
        owningPlugin: (group, resource) => {
          const owner = ownerOf(group, resource);
          return owner === undefined ? undefined : pluginOf(owner);
        },
      }),
    );
    for (const resource of SELF_REVIEW_RESOURCES) discover(resource);
    router.add(
      userListRoutes({
        objects,
        users: authn.users.served,
        roles: roles.service,
        usernameOf: (name) => authn.users.usernameOf(name),
      }),
    );
    router.add(modelAccessRoutes(modelAccess));
    const pluginUiListeners = new Set<() => void>();
    const consoleEvents = new ConsoleEvents({
      streams: watch.streams,
      credentials,
      uiPermissionsOf: (username) =>
        uiPermissionsOf(roles.service.expandFor({ username, via: 'session' }), mayBrowseModels),
      pluginUis: { onChange: (listener) => pluginUiListeners.add(listener) },
    });
    router.add(consoleEvents.routes());
    lifecycle.onStop('streams', () => consoleEvents.endAll());
    return {
      decisions,
      mayBrowseModels,
      pluginUisChanged: () => {
        for (const listener of pluginUiListeners) listener();
      },
    };
  },
});
