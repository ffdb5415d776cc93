import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { createApp } from './api/app.js';
import { DynamicRouter } from './api/dynamic-router.js';
import { generatedRoutes } from './api/generated-routes.js';
import type { HttpContext } from './api/http-context.js';
import type { Config } from './config.js';
import { ModelRegistry } from './registry/model-registry.js';
import { ObjectService } from './registry/object-service.js';
import { PluginHost } from './plugins/plugin-host.js';
import { openPostgresStore } from './store/postgres.js';
import { openSqliteStore } from './store/sqlite.js';
import { withReadCache } from './store/cached-store.js';
import type { Store } from './store/types.js';
import { HOST_VERSION } from './version.js';

export interface Server {
  app: ReturnType<typeof createApp>;
  store: Store;
  registry: ModelRegistry;
  objects: ObjectService;
  plugins: PluginHost;
  logger: Logger;
  /** Set once listening, e.g. `http://127.0.0.1:8090`. */
  url?: string;
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The composition root: the only place that names SQLite or PostgreSQL and wires the modules together. */
export interface ServerOptions {
  logger?: Logger;
  /** PostgreSQL schema to keep the tables in (tests give each server its own); default `public`. */
  databaseSchema?: string;
  /** How long a plugin's start may take before it is FAILED (default 30 s). */
  pluginStartTimeoutMs?: number;
}

export async function createServer(config: Config, options: ServerOptions = {}): Promise<Server> {
  const logger = options.logger ?? pino({ level: config.logLevel, base: undefined });
  const store = await openStore(config, options.databaseSchema);
  const registry = new ModelRegistry(store);
  const objects = new ObjectService(store, (error) => logger.error({ err: error }, 'a commit listener failed'));
  const router = new DynamicRouter<HttpContext>();
  router.add(generatedRoutes(registry, objects));
  const app = createApp({ logger, router });
  const plugins = new PluginHost({
    registry,
    objects,
    router,
    logger,
    hostVersion: HOST_VERSION,
    startTimeoutMs: options.pluginStartTimeoutMs,
  });
  await plugins.loadDirectories(config.pluginsDirs);
  await app.ready();

  const server: Server = {
    app,
    store,
    registry,
    objects,
    plugins,
    logger,
    async listen() {
      await app.listen({ host: config.host, port: config.port });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      server.url = `http://${host}:${port}`;
      return server.url;
    },
    async close() {
      await app.close();
      await plugins.shutdown();
      await store.close();
    },
  };
  return server;
}

async function openStore(config: Config, schema?: string): Promise<Store> {
  if (config.databaseUrl) return openPostgresStore({ connectionString: config.databaseUrl, schema });
  await mkdir(config.dataDir, { recursive: true });
  // The embedded database belongs to this process alone, so a read cache in front of it can never go stale.
  return withReadCache(openSqliteStore({ path: path.join(config.dataDir, 'svc.db') }));
}
