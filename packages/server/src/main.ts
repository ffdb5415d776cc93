import type { ModelDefinition } from '@svc/plugin-api';
import type { Logger } from 'pino';
import { type Http, httpModule, httpRef } from './api/module.js';
import { type AuditOptions, auditModule } from './audit/module.js';
import { personalAccessTokenModel, userModel } from './authn/models.js';
import { type AuthnOptions, type AuthnServices, authnModule, authnRef } from './authn/module.js';
import type { Config } from './config.js';
import { consoleModule } from './console/module.js';
import { contentModule } from './content/module.js';
import { postModel } from './content/post-model.js';
import type { ControllerManager } from './controllers/controller-manager.js';
import { type ControllersOptions, controllersModule, controllersRef } from './controllers/module.js';
import { type Composed, compose } from './kernel/compose.js';
import type { Module } from './kernel/module.js';
import { loggerRef, optionsRef, settingsRef } from './kernel/root.js';
import { chooseLogFormat, createLogger, logStart } from './logger.js';
import { metricsModule } from './metrics/module.js';
import { openApiModule } from './openapi/module.js';
import { type Plugins, type PluginsOptions, pluginsModule, pluginsRef } from './plugins/module.js';
import { pluginModel, pluginSettingModel } from './plugins/plugin-model.js';
import type { DecisionCache } from './rbac/decision-cache.js';
import { roleBindingModel, roleModel } from './rbac/models.js';
import { accessModule, accessRef, rolesModule } from './rbac/module.js';
import { type RegistryServices, registryModule, registryRef } from './registry/module.js';
import { type StoreOptions, storeModule, storeRef } from './store/module.js';
import type { Store } from './store/types.js';
import { HOST_VERSION } from './version.js';
import { type WatchOptions, type WatchServices, watchModule, watchRef } from './watch/module.js';

/**
 * The server's feature modules. Each declares what it needs and provides (kernel/module.ts); the kernel starts them
 * phase by phase in the order their needs give (kernel/compose.ts), and stops them stage by stage in reverse.
 */
export const MODULES: readonly Module[] = [
  storeModule,
  registryModule,
  watchModule,
  httpModule,
  auditModule,
  controllersModule,
  consoleModule,
  rolesModule,
  authnModule,
  accessModule,
  contentModule,
  pluginsModule,
  openApiModule,
  metricsModule,
] as Module[];

/** The models this server registers itself; `svc import`, which starts nothing, checks these fully. */
export const CORE_MODELS: readonly ModelDefinition[] = Object.freeze([
  roleModel,
  roleBindingModel,
  userModel,
  personalAccessTokenModel,
  postModel,
  pluginModel,
  pluginSettingModel,
]);

/** An in-process server's options: each module's own (tests' knobs), and the logger. */
export type ServerOptions = { logger?: Logger } & StoreOptions &
  AuditOptions &
  WatchOptions &
  ControllersOptions &
  AuthnOptions &
  PluginsOptions;

/** A running server, as `svc serve` and the tests use it: the modules' services, and listening and closing. */
export interface Server {
  /** Every module's service, by its ref (`server.modules.get(auditRef)`). */
  modules: Composed;
  app: Http['app'];
  router: Http['router'];
  store: Store;
  registry: RegistryServices['registry'];
  objects: RegistryServices['objects'];
  /** How this replica follows the others' writes (a shared store only). */
  feed?: RegistryServices['feed'];
  watches: WatchServices['watches'];
  retention: WatchServices['retention'];
  controllers: ControllerManager;
  /** Users, sessions, tokens and the authenticator the authorization hook calls. */
  authn: AuthnServices;
  /** The gate's decision cache (its hit rate is logged at debug level). */
  decisions: DecisionCache;
  plugins: Plugins['host'];
  /** Plugin objects and the install/upgrade/enable operations on them. */
  lifecycle: Plugins['lifecycle'];
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

export async function createServer(config: Config, options: ServerOptions = {}): Promise<Server> {
  const logger =
    options.logger ??
    (await createLogger(config.logLevel, chooseLogFormat(config.logFormat, process.stdout.isTTY === true)));
  logStart(logger, HOST_VERSION);
  const modules = await compose(MODULES, [
    [settingsRef, config],
    [loggerRef, logger],
    [optionsRef<ServerOptions>(), options],
  ]);
  await modules.ready();
  const http = modules.get(httpRef);
  const { registry, objects, feed } = modules.get(registryRef);
  const { watches, retention } = modules.get(watchRef);
  const authn = modules.get(authnRef);
  const { host, lifecycle } = modules.get(pluginsRef);
  const server: Server = {
    modules,
    app: http.app,
    router: http.router,
    store: modules.get(storeRef).store,
    registry,
    objects,
    feed,
    watches,
    retention,
    controllers: modules.get(controllersRef),
    authn,
    decisions: modules.get(accessRef).decisions,
    plugins: host,
    lifecycle,
    logger,
    async listen() {
      const listening = await http.listen();
      Object.assign(server, listening, { setupUrl: authn.announcedSetupUrl });
      return listening.url;
    },
    close: () => modules.stop(),
  };
  return server;
}
