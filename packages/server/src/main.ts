import path from 'node:path';
import type { ModelDefinition } from '@svc/plugin-api';
import type { Logger } from 'pino';
import { hostPolicy } from './api/allowed-hosts.js';
import { createApp } from './api/app.js';
import { discoveryRoutes } from './api/discovery.js';
import { DynamicRouter } from './api/dynamic-router.js';
import { generatedRoutes } from './api/generated-routes.js';
import type { HttpContext } from './api/http-context.js';
import { listenSecurely, type SecureListener } from './api/secure-listener.js';
import { setupLinkNotice } from './authn/first-run.js';
import { type Authentication, setupAuthentication } from './authn/index.js';
import type { LoginClock, LoginLimits } from './authn/login-limiter.js';
import { personalAccessTokenModel, userModel } from './authn/models.js';
import { PasswordHasher, type ScryptParameters } from './authn/passwords.js';
import type { ExpandedRoles } from './authz/roles.js';
import type { Config } from './config.js';
import { mountConsole } from './console/console-routes.js';
import { postModel } from './content/post-model.js';
import { postRoutes } from './content/post-routes.js';
import { ControllerManager } from './controllers/controller-manager.js';
import { startGarbageCollector } from './controllers/garbage-collector.js';
import type { QueueOptions } from './controllers/work-queue.js';
import { chooseLogFormat, createLogger } from './logger.js';
import { createMetrics } from './metrics/metrics.js';
import { normalizeModelDefinition } from './objects/model-definition.js';
import { FRAMEWORK_ROUTES } from './openapi/framework-routes.js';
import { openApiRoutes } from './openapi/openapi-routes.js';
import { OpenApiDocuments } from './openapi/openapi-service.js';
import { pluginConsoleRoutes } from './plugins/console-routes.js';
import { InstalledCode } from './plugins/installed-code.js';
import { pluginLogger } from './plugins/plugin-context.js';
import { PluginHost } from './plugins/plugin-host.js';
import { PluginLifecycle } from './plugins/plugin-lifecycle.js';
import { pluginModel } from './plugins/plugin-model.js';
import { PluginUis } from './plugins/plugin-ui.js';
import { pluginUiRoutes } from './plugins/ui-routes.js';
import { createAttributeResolver, createAuthorizationHook } from './rbac/authorization-hook.js';
import { startRbac } from './rbac/boot.js';
import { ConsoleEvents } from './rbac/console-events.js';
import { DecisionCache, logDecisionCache } from './rbac/decision-cache.js';
import { mayListAnyModel, modelAccessRoutes } from './rbac/model-access-routes.js';
import { roleBindingModel, roleModel } from './rbac/models.js';
import { permissionRoutes } from './rbac/permission-routes.js';
import { uiPermissionsOf } from './rbac/ui-permissions.js';
import { installUserAdmission } from './rbac/user-admission.js';
import { userListRoutes } from './rbac/user-list-routes.js';
import { UserManagement } from './rbac/user-management.js';
import { createSetUserRoles } from './rbac/user-roles.js';
import type { Actor } from './registry/admission.js';
import { ChangeFeed } from './registry/change-feed.js';
import { IndexSnapshots } from './registry/index-snapshots.js';
import { ModelRegistry } from './registry/model-registry.js';
import { ObjectService } from './registry/object-service.js';
import { saveIndexSnapshots } from './registry/save-snapshots.js';
import { openStore } from './store/open-store.js';
import { fixedLease } from './store/sole-lease.js';
import type { Store } from './store/types.js';
import { loadTlsMaterial } from './tls/certificates.js';
import { PerKeyLimit } from './util/per-key-limit.js';
import { makePrivateTree } from './util/private-files.js';
import { HOST_VERSION } from './version.js';
import { type Retention, startHistoryRetention } from './watch/history-retention.js';
import { WatchHub } from './watch/hub.js';
import { WatchAccess } from './watch/watch-access.js';
import { DEFAULT_WATCH_LIMITS, WatchService } from './watch/watch-service.js';
import type { WatcherLimits } from './watch/watcher.js';

/**
 * The models this server registers itself, each in its own module's start (plugins' models are registered by their
 * code). `svc import`, which starts nothing, checks objects of these fully (cli/backup-validation.ts).
 */
export const CORE_MODELS: readonly ModelDefinition[] = Object.freeze([
  roleModel,
  roleBindingModel,
  userModel,
  personalAccessTokenModel,
  postModel,
  pluginModel,
]);

/** The secret-record kind holding uploaded plugin archives on a shared store. */
const PLUGIN_ARCHIVES = 'plugin.svc.run/archives';

export interface Server {
  app: ReturnType<typeof createApp>;
  store: Store;
  registry: ModelRegistry;
  objects: ObjectService;
  plugins: PluginHost;
  /** Plugin objects and the install/upgrade/enable operations on them. */
  lifecycle: PluginLifecycle;
  watches: WatchService;
  controllers: ControllerManager;
  /** How this replica follows the others' writes (a shared store only). */
  feed?: ChangeFeed;
  retention: Retention;
  /** Users, sessions, tokens and the authenticator the authorization hook calls. */
  authn: Authentication;
  /** The gate's decision cache (its hit rate is logged at debug level). */
  decisions: DecisionCache;
  /** The runtime router: every generated, core and plugin route under /api, /apis and the console's paths. */
  router: DynamicRouter<HttpContext>;
  logger: Logger;
  /** Set once listening, e.g. `http://127.0.0.1:8090`. */
  url?: string;
  /** Set once listening when the HTTPS listener is on, e.g. `https://127.0.0.1:8443`. */
  httpsUrl?: string;
  /** The CA file clients trust the HTTPS listener with, when svc made its certificate (under the data dir). */
  caFile?: string;
  /** Set once listening while the first-run setup is pending: the one-time link `listen()` printed. */
  setupUrl?: string;
  /** Starts the HTTP listener, and the HTTPS one unless it is off; answers the HTTP URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The composition root: the only place that names SQLite or PostgreSQL and wires the modules together. */
export interface ServerOptions {
  logger?: Logger;
  /** PostgreSQL schema to keep the tables in (tests give each server its own); default SVC_DATABASE_SCHEMA, or `public`. */
  databaseSchema?: string;
  /** How long a plugin's start may take before it is FAILED (default 30 s). */
  pluginStartTimeoutMs?: number;
  /** Watch limits (backlog per watcher, bookmark period, …); defaults in DEFAULT_WATCH_LIMITS. */
  watch?: Partial<WatcherLimits>;
  /** How often the change history is compacted to `SVC_WATCH_HISTORY` events (default 10 s). */
  compactionIntervalMs?: number;
  /** Retry backoff of reconcilers (default 10 ms doubling up to 60 s). */
  reconcileBackoff?: QueueOptions;
  /**
   * Sign-in throttle (defaults in DEFAULT_LOGIN_LIMITS); tests give a clock to see its delays, and a cheaper scrypt
   * cost (hashes record their own parameters, so every hash still verifies; without it, DEFAULT_SCRYPT).
   */
  login?: { limits?: Partial<LoginLimits>; clock?: Partial<LoginClock>; passwordHashing?: ScryptParameters };
  /**
   * Where the first-run setup link's framed block is printed: standard error by default, never standard output (the
   * log's stream) nor the log (it is a credential).
   */
  announce?: (text: string) => void;
  /** The clock the first-run setup link expires by (tests). */
  setupClock?: () => number;
}

export async function createServer(config: Config, options: ServerOptions = {}): Promise<Server> {
  const logger =
    options.logger ??
    (await createLogger(config.logLevel, chooseLogFormat(config.logFormat, process.stdout.isTTY === true)));
  // The flags too: `svc serve` sets the young generation's size (bin/node-flags.js), and a tail problem starts there.
  const flags = process.execArgv.length > 0 ? ` (${process.execArgv.join(' ')})` : '';
  logger.info(
    { version: HOST_VERSION, node: process.version, nodeFlags: process.execArgv, pid: process.pid },
    `svc ${HOST_VERSION} on Node.js ${process.version}${flags}`,
  );
  await warnOfWidePermissions(config.dataDir, logger);
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    schema: options.databaseSchema ?? config.databaseSchema,
    server: true,
    replicaId: config.replicaId,
    sqliteSync: config.sqliteSync,
  });
  logger.info({ dialect: store.dialect, durability: store.durability }, `store: ${store.dialect}, ${store.durability}`);
  const snapshots =
    config.indexSnapshotMinObjects === undefined
      ? undefined
      : new IndexSnapshots(store.secrets, { minObjects: config.indexSnapshotMinObjects });
  const registry = new ModelRegistry(store, logger, snapshots);
  const objects = new ObjectService(store, (error) => logger.error({ err: error }, 'a commit listener failed'));
  // Replicas of a shared store follow each other's writes; started before any index is built, so none is missed.
  const feed = store.shared
    ? new ChangeFeed(store, registry, objects, {
        onError: (error) => logger.error({ err: error }, 'following the store failed'),
        onFellBehind: (error) =>
          logger.error({ err: error }, 'this replica fell behind the compacted history: restart it to rebuild'),
      })
    : undefined;
  await feed?.start();
  const hub = await WatchHub.open(store, objects, registry, (error) =>
    logger.error({ err: error }, 'a watch subscriber failed'),
  );
  feed?.onCaughtUp((revision) => hub.advance(revision));
  // What must run once among replicas (reconcilers, garbage collection, compaction, removing a plugin's objects)
  // runs where this lease is held; a store only this process opens holds it for good.
  const lease = config.controllers ? store.lease('controllers') : fixedLease(false);
  if (!config.controllers) logger.warn('controllers are off (SVC_CONTROLLERS=off): this server never reconciles');
  // One count of open streams per caller, for watches and console event streams alike.
  const streams = new PerKeyLimit(config.maxWatchesPerUser);
  const watches = new WatchService(
    store,
    hub,
    { ...DEFAULT_WATCH_LIMITS, ...options.watch },
    (error) => logger.error({ err: error }, 'a watch failed'),
    streams,
  );
  // A model that goes away ends its watches (a client re-lists and gets the 404).
  registry.onChange((event, served) => event === 'unregistered' && watches.endAll(served.model.resource));
  const controllers = new ControllerManager({
    registry,
    hub,
    committedRevision: () => objects.latestRevision,
    queueOptions: options.reconcileBackoff,
    // Controllers start once the server is ready to serve (the end of createServer): a first pass over a million
    // objects beside the boot delayed serving by 1.3 s, and Kubernetes' controllers too start after the API serves.
    leading: false,
  });
  let booted = false;
  lease.onChange((held) => {
    logger.info(
      { epoch: lease.epoch },
      held ? 'this replica leads: controllers start' : 'this replica stopped leading',
    );
    if (!booted) return;
    void controllers.setLeading(held).catch((error: unknown) => logger.error({ err: error }, 'handing over failed'));
  });
  const stopGarbageCollector = startGarbageCollector(
    { manager: controllers, registry, objects },
    pluginLogger(logger, 'core'),
  );
  const retention = startHistoryRetention(
    store,
    config.watchHistory,
    options.compactionIntervalMs ?? 10_000,
    (error) => logger.error({ err: error }, 'compacting the change history failed'),
    () => lease.held,
  );
  const router = new DynamicRouter<HttpContext>();
  router.add(generatedRoutes(registry, objects, watches));
  router.add(discoveryRoutes(registry));
  router.add(openApiRoutes(new OpenApiDocuments(registry, router, FRAMEWORK_ROUTES, HOST_VERSION)));
  // Replicas booting at once take turns from here to their plugins' start: built-in roles, the super administrator
  // and plugins' declared objects are written by one at a time, each having applied what those before it wrote.
  const unlockBoot = await store.lock('boot');
  await feed?.sync();
  // Roles before plugins, so the role templates a plugin declares can be created when it starts.
  // A plugin's declarations are bounded by the groups it owns, which the host knows (it is called once plugins start).
  const rbac = await startRbac(registry, objects, (plugin) => plugins.ownedGroups(plugin));
  // Who may manage whom needs both halves: roles from RBAC, and which users are enabled from authentication (asked
  // only once requests are served, after `authn` below exists).
  const management = new UserManagement(rbac.service, (username) => authn.users.isActive(username));
  const setUserRoles = createSetUserRoles(objects, rbac.service, rbac.bindings, management);
  const authn = await setupAuthentication({
    store,
    registry,
    objects,
    logger,
    settings: config,
    rolesOf: async (username) => rbac.service.boundRoles(username),
    setUserRoles,
    manageUser: (actor, target, action) => management.checkMayManage(actor, target, action),
    limits: options.login?.limits,
    loginClock: options.login?.clock,
    hasher: options.login?.passwordHashing && new PasswordHasher(options.login.passwordHashing),
    setupClock: options.setupClock,
  });
  installUserAdmission({
    objects,
    roles: rbac.service,
    management,
    users: authn.users.served,
    tokens: authn.tokens.served,
    roleModel: rbac.roles,
    bindings: rbac.bindings,
  });
  await authn.ensureSuperAdministrator();
  // A watch ends when its caller loses access: roles, sign-out, token, user or password changes, and expiry.
  watches.checkAccessWith(
    new WatchAccess({
      roles: rbac.service,
      users: authn.users,
      sessions: authn.sessions,
      tokens: authn.tokens,
      credentials: authn.credentials,
      onError: (error) => logger.error({ err: error }, "checking a watch's access failed"),
    }),
  );
  router.add(authn.routes());
  const posts = await registry.register(normalizeModelDefinition(postModel, { kind: 'system' }), 'core');
  router.add(postRoutes(objects, posts));
  const decisions = new DecisionCache();
  const stopDecisionLog = logDecisionCache(decisions, logger);
  const app = createApp({
    logger,
    router,
    trustProxy: config.trustProxy,
    accessLog: config.accessLog,
    acceptsHost: hostPolicy({ listenHost: config.host, tlsHosts: config.tlsHosts, allowedHosts: config.allowedHosts }),
    metrics: createMetrics({ controllers, registry, watches, leads: () => lease.held }),
    notReadyBecause: () =>
      feed && !feed.caughtUp ? `catching up with the store's changes (at revision ${feed.revision})` : undefined,
  });
  app.register(authn.loginRoutes);
  mountConsole(app, router);
  // The one gate every request passes before its body is read: classify, authenticate, authorize.
  app.addHook(
    'onRequest',
    createAuthorizationHook({
      authenticate: (request) => authn.authenticator.authenticate(request),
      challenge: (detail) => authn.authenticator.challenge(detail),
      roles: rbac.service,
      registry,
      router,
      decisions,
    }),
  );
  const modelAccess = { registry, roles: rbac.service, attributesOf: createAttributeResolver(registry, router) };
  const mayBrowseModels = (expanded: ExpandedRoles) => mayListAnyModel(modelAccess, expanded);
  router.add(
    permissionRoutes({
      roles: rbac.service,
      setUserRoles,
      userExists: async (username) => authn.users.exists(username),
      endSessionsOf: async (username) => void (await authn.endSessionsOf(username)),
      attributesOf: modelAccess.attributesOf,
      mayBrowseModels,
    }),
  );
  router.add(userListRoutes({ objects, users: authn.users.served, roles: rbac.service }));
  router.add(modelAccessRoutes(modelAccess));
  const plugins = new PluginHost({
    // A custom route's handler learns who calls and what roles they hold, never their credentials.
    callerRoles: (caller) => [...rbac.service.expandFor(caller).roleNames].sort(),
    registry,
    objects,
    router,
    logger,
    startTimeoutMs: options.pluginStartTimeoutMs,
    controllers,
    replicas: feed ? { leads: () => lease.held, catchUp: () => feed.sync() } : undefined,
  });
  // Plugin code runs with everything this process has: putting it to work is a super administrator's act.
  const mayRunCode = (actor: Actor) => actor.kind === 'user' && rbac.service.isSuper(actor.principal);
  const lifecycle = new PluginLifecycle({
    host: plugins,
    mayRunCode,
    registry,
    objects,
    controllers,
    installed: new InstalledCode(path.join(config.dataDir, 'plugins')),
    logger,
    hostVersion: HOST_VERSION,
    replica: store.shared ? { id: config.replicaId, leads: () => lease.held } : undefined,
    // Replicas share uploaded archives through the store's secret records (outside the history: no watch carries them).
    archives: store.shared
      ? {
          put: (name, archive) => store.secrets.put(PLUGIN_ARCHIVES, name, archive),
          get: (name) => store.secrets.get(PLUGIN_ARCHIVES, name),
          delete: async (name) => void (await store.secrets.delete(PLUGIN_ARCHIVES, name)),
        }
      : undefined,
  });
  await lifecycle.boot(config.pluginsDirs);
  await unlockBoot();
  router.add(pluginConsoleRoutes({ lifecycle, objects, mayRunCode }));
  router.add(pluginUiRoutes(new PluginUis(plugins)));
  const consoleEvents = new ConsoleEvents({
    streams,
    roles: rbac.service,
    uiPermissionsOf: (username) =>
      uiPermissionsOf(rbac.service.expandFor({ username, via: 'session' }), mayBrowseModels),
    sessions: authn.sessions,
    users: authn.users,
    tokens: authn.tokens,
    pluginUis: {
      onChange: (listener) =>
        plugins.onRunningChange((record) => {
          if (record.manifest.spec.ui) listener();
        }),
    },
  });
  router.add(consoleEvents.routes());
  await app.ready();
  booted = true;
  await controllers.setLeading(lease.held);

  let secure: SecureListener | undefined;
  const server: Server = {
    app,
    store,
    registry,
    objects,
    plugins,
    lifecycle,
    watches,
    controllers,
    feed,
    retention,
    authn,
    decisions,
    router,
    logger,
    async listen() {
      await app.listen({ host: config.host, port: config.port });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      server.url = `http://${host}:${port}`;
      if (config.httpsPort !== undefined) {
        const material = await loadTlsMaterial({
          dataDir: config.dataDir,
          certFile: config.tlsCertFile,
          keyFile: config.tlsKeyFile,
          hosts: [config.host, ...config.tlsHosts],
        });
        if (material.caReplaced) {
          logger.warn(
            `made a new CA (${material.caFile}) for hosts the old one does not permit: clients must trust it`,
          );
        }
        secure = await listenSecurely(app, { host: config.host, port: config.httpsPort, ...material });
        server.httpsUrl = secure.url;
        server.caFile = material.caFile;
      }
      server.setupUrl = authn.setup.link(setupLinkBase(config.host, server.url, server.httpsUrl));
      if (server.setupUrl) {
        // Standard error: the log goes to standard output, where a collector may keep it.
        const announce = options.announce ?? ((text: string) => void process.stderr.write(text));
        announce(setupLinkNotice(server.setupUrl));
      }
      return server.url;
    },
    async close() {
      retention.stop();
      stopDecisionLog();
      // Open watch streams would keep the HTTP server from closing.
      watches.endAll();
      consoleEvents.endAll();
      await secure?.close();
      await app.close();
      // Writers stop before the indexes are written down (plugins stop after: stopping one unregisters its models).
      stopGarbageCollector();
      await controllers.stopAll();
      if (snapshots) {
        await saveIndexSnapshots({
          registry,
          objects,
          snapshots,
          logger,
          appliedRevision: feed
            ? async () => {
                await feed.sync();
                return feed.revision;
              }
            : () => store.currentRevision(),
        });
      }
      await plugins.shutdown();
      feed?.close();
      hub.close();
      authn.close();
      await store.close();
    },
  };
  return server;
}

/**
 * Where the setup link points. On a loopback or wildcard address, plain HTTP on this machine (the password stays on
 * it, and a browser opens it without a certificate warning); on any other address, HTTPS when it is on, so the
 * administrator's password does not cross the network in the clear.
 */
export function setupLinkBase(host: string, httpUrl: string, httpsUrl: string | undefined): string {
  const wildcard = host === '0.0.0.0' || host === '::';
  const loopback = host === 'localhost' || host === '::1' || /^127\./.test(host);
  if (wildcard) return httpUrl.replace(host === '::' ? '[::]' : host, host === '::' ? '[::1]' : '127.0.0.1');
  return loopback || !httpsUrl ? httpUrl : httpsUrl;
}

/**
 * The data directory is its owner's alone (util/private-files.ts): one that others could read (made by an older svc,
 * or copied with a wide umask) is tightened before anything opens it, and the log says what was changed.
 */
async function warnOfWidePermissions(dataDir: string, logger: Logger): Promise<void> {
  const changed = await makePrivateTree(dataDir);
  if (changed.length === 0) return;
  logger.warn(
    { paths: changed.slice(0, 20), count: changed.length },
    `the data directory ${dataDir} was readable by other users: removed their access to ${changed.length} ` +
      `files and folders (the database holds password hashes and token digests)`,
  );
}
