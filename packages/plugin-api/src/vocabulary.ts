/**
 * svc's wire vocabulary: the API groups, paths, labels, annotations, finalizers, built-in role names, kinds and stored
 * record names the service defines (docs/api.md). Each is spelled here and nowhere else in the sources; the server,
 * the client, the console and plugins import it, so a name cannot drift between them
 * (packages/server/test/vocabulary.test.ts fails on a second spelling of a `svc.run` name or a kind).
 */

/** The reserved suffix: the empty group and every group ending in it belong to the service. */
export const SERVICE_DOMAIN = 'svc.run';

/** The version of every API group the service defines. */
export const SERVICE_VERSION = 'v1alpha1';

// API groups. A plugin's own are `<plugin>.svc.run` and its `console.api.`, `uc.api.` and `api.` forms.

/** Installed plugins: the `Plugin` model. */
export const PLUGIN_GROUP = 'plugin.svc.run';
/** Posts, the content the built-in writing roles act on. */
export const CONTENT_GROUP = 'content.svc.run';
/** A user's own posts. */
export const USER_CONTENT_GROUP = 'uc.api.content.svc.run';
/** Published posts, for everyone. */
export const PUBLIC_CONTENT_GROUP = 'api.content.svc.run';
/** Personal access tokens, as an administrator sees them all. */
export const SECURITY_GROUP = 'security.svc.run';
/** A user's own personal access tokens. */
export const USER_SECURITY_GROUP = 'uc.api.security.svc.run';
/** The audit log's events (docs/api.md "Audit"). */
export const AUDIT_GROUP = 'audit.svc.run';
/** The console's endpoints: users, permissions, access reviews, plugin management, setup. */
export const CONSOLE_GROUP = 'api.console.svc.run';
/** Not a group: the prefix of the labels and annotations of roles. */
export const RBAC_DOMAIN = 'rbac.authorization.svc.run';

/** Kubernetes' own groups svc serves a part of: the access reviews (`kubectl auth can-i`) and who-am-I. */
export const KUBERNETES_AUTHORIZATION_GROUP = 'authorization.k8s.io';
export const KUBERNETES_AUTHENTICATION_GROUP = 'authentication.k8s.io';

/** Where a group version's routes are served: `/apis/<group>/<version>`. */
export const apisPath = (group: string, version: string = SERVICE_VERSION) => `/apis/${group}/${version}`;

export const CONSOLE_API = apisPath(CONSOLE_GROUP);
/** The audit log: `GET` with `user`, `verb`, `resource`, `name`, `since`, `until`, `limit`, `continue`. */
export const AUDIT_EVENTS_PATH = `${apisPath(AUDIT_GROUP)}/events`;
export const PLUGIN_API_VERSION = 'plugin.svc.run/v1alpha1';
export const CONTENT_API_VERSION = 'content.svc.run/v1alpha1';

/** The base of problem+json `type` URIs: `https://svc.run/problems/<title>`. */
export const PROBLEM_TYPE_BASE = 'https://svc.run/problems/';

// Labels. Under the service's prefixes only these keys are accepted; svc acts on them.

/** `"true"` on a role template: a role offered by the console's role picker, grouped by its module. */
export const ROLE_TEMPLATE_LABEL = 'svc.run/role-template';
/** `"true"` keeps a role off the Roles page and out of the role picker. */
export const HIDDEN_LABEL = 'svc.run/hidden';
/** `"true"` on the roles svc writes at start; they cannot be edited or deleted through the API. */
export const BUILT_IN_LABEL = 'svc.run/built-in';
/** `aggregate-to-<role>: "true"` adds a role's rules to `<role>`. */
export const AGGREGATE_TO_LABEL_PREFIX = 'rbac.authorization.svc.run/aggregate-to-';
/** The plugin that declared an object in its `extensions/`; only svc writes it. */
export const PLUGIN_NAME_LABEL = 'plugin.svc.run/plugin-name';
/** The user who owns a post. */
export const POST_OWNER_LABEL = 'content.svc.run/owner';
/** `"true"` on a published post. */
export const POST_PUBLISHED_LABEL = 'content.svc.run/published';
/** The user a personal access token belongs to. */
export const TOKEN_USER_LABEL = 'security.svc.run/user';

// Annotations.

/** A role's roles it depends on, as a JSON array of names: holding it means holding them. */
export const DEPENDENCIES_ANNOTATION = 'rbac.authorization.svc.run/dependencies';
/** A role's UI permissions (`plugin:<plugin>:<scope>`), as a JSON array: which parts of the console it shows. */
export const UI_PERMISSIONS_ANNOTATION = 'rbac.authorization.svc.run/ui-permissions';
/** The module a role template is grouped under in the role picker. */
export const MODULE_ANNOTATION = 'rbac.authorization.svc.run/module';
/** What people call a role. */
export const DISPLAY_NAME_ANNOTATION = 'rbac.authorization.svc.run/display-name';
/** A new personal access token's value, in the answer to its create only. */
export const ACCESS_TOKEN_ANNOTATION = 'security.svc.run/access-token';
/** The digest of an object a plugin declares, as svc last wrote it: says whether a user has changed it since. */
export const DECLARED_DIGEST_ANNOTATION = 'plugin.svc.run/declared-digest';
/**
 * Asks for another start of a plugin whose start failed (any new value; `PUT …/plugin-state` with `"enable": true`
 * writes the time). Part of the desired state: every server whose start of the plugin failed tries again once.
 */
export const START_REQUEST_ANNOTATION = 'plugin.svc.run/start-requested';
/** What an uninstall does with the plugin's data (`keep` or `delete`), written by the DELETE that began it. */
/**
 * On a Plugin, while `svc plugin dev --ui URL` runs: the URL of its UI entry on the author's Vite dev server, which
 * the console loads instead of the built bundle when the server allows that origin (SVC_PLUGIN_DEV_ORIGINS).
 */
export const PLUGIN_DEV_UI_ANNOTATION = 'plugin.svc.run/dev-ui';
export const UNINSTALL_DATA_ANNOTATION = 'plugin.svc.run/uninstall-data';

// Finalizers.

/** Held by every Plugin object, so deleting one first stops the plugin and removes its code. */
export const UNINSTALL_FINALIZER = 'plugin.svc.run/uninstall';

// Roles svc writes at start, which everything else builds on.

/** Allows everything: the super administrator's. */
export const SUPER_ROLE = 'super-role';
/** Held by every visitor, signed in or not. */
export const ANONYMOUS_ROLE = 'anonymous';
/** Held by every signed-in caller. */
export const AUTHENTICATED_ROLE = 'authenticated';

// Kinds.

/** The kinds of svc's own models, and the Kubernetes kinds its answers carry. */
export const KIND = Object.freeze({
  Role: 'Role',
  RoleBinding: 'RoleBinding',
  User: 'User',
  /** A RoleBinding's subject naming a group of users (an OIDC groups claim, or groups an administrator gives). */
  Group: 'Group',
  PersonalAccessToken: 'PersonalAccessToken',
  Plugin: 'Plugin',
  /** A plugin's settings values (one per plugin, named after it). */
  PluginSetting: 'PluginSetting',
  Post: 'Post',
  /** Kubernetes' error answer (also a watch's ERROR event). */
  Status: 'Status',
  /** Kubernetes' list of objects of any kinds (`kubectl get -o yaml` of several). */
  List: 'List',
  /** Kubernetes' reviews of the caller's own access (`kubectl auth can-i`, `--list`) and identity (`whoami`). */
  SelfSubjectAccessReview: 'SelfSubjectAccessReview',
  SelfSubjectRulesReview: 'SelfSubjectRulesReview',
  SelfSubjectReview: 'SelfSubjectReview',
  /** An audit event (`audit.k8s.io/v1`). */
  Event: 'Event',
} as const);

// Records svc keeps in its store for itself, never served.

/** Password hashes (secret records). */
export const CREDENTIALS_RECORDS = 'security.svc.run/credentials';
/** Session records. */
export const SESSIONS_RECORDS = 'security.svc.run/sessions';
/** Personal access token digests. */
export const TOKEN_DIGESTS_RECORDS = 'security.svc.run/tokendigests';
/** Failed sign-ins, shared among replicas. */
export const SIGN_IN_FAILURES_RECORDS = 'security.svc.run/sign-in-failures';
/** Large models' index snapshots, written at a stop: derived from the objects, so never carried by a backup. */
export const INDEX_SNAPSHOTS_RECORDS = 'svc.run/index-snapshots';
/** The replica that wrote an audit event (its annotation). */
export const REPLICA_ANNOTATION = 'svc.run/replica';
/** The archives installed plugins came from, so every replica can load them. */
export const PLUGIN_ARCHIVES_RECORDS = 'plugin.svc.run/archives';
