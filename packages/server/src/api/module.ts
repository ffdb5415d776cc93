import { defineModule, ref } from '../kernel/module.js';
import { loggerRef, settingsRef } from '../kernel/root.js';
import { registryRef } from '../registry/module.js';
import { loadTlsMaterial } from '../tls/certificates.js';
import { watchRef } from '../watch/module.js';
import { hostPolicy } from './allowed-hosts.js';
import { createApp } from './app.js';
import { type DiscoveredResource, discoveryRoutes } from './discovery.js';
import { Drain } from './drain.js';
import { DynamicRouter } from './dynamic-router.js';
import { generatedRoutes } from './generated-routes.js';
import type { HttpContext } from './http-context.js';
import { LongRunningRequests } from './long-running.js';
import { listenSecurely, type SecureListener } from './secure-listener.js';

/** Where the server listens, once it does. */
export interface Listening {
  /** e.g. `http://127.0.0.1:8090` */
  url: string;
  /** e.g. `https://127.0.0.1:8443`, when the HTTPS listener is on. */
  httpsUrl?: string;
  /** The CA file clients trust the HTTPS listener with, when svc made its certificate (under the data dir). */
  caFile?: string;
}

export interface Http {
  app: ReturnType<typeof createApp>;
  /** The runtime router: every feature's routes, the generated ones, plugins' (added and removed at runtime). */
  router: DynamicRouter<HttpContext>;
  /** Hears long-running answers (watches, the console's events) as they start; `onResponse` hears them end. */
  longRunning: LongRunningRequests;
  /** Starts the HTTP listener, and the HTTPS one unless it is off; then tells `onListening`'s listeners. */
  listen(): Promise<Listening>;
  /** Hears where the server listens, once it does (the first-run setup link is printed then). */
  onListening(listener: (listening: Listening) => void): void;
  /** Lists a resource a feature serves with routes of its own (not a model) in discovery. */
  discover(resource: DiscoveredResource): void;
}

export const httpRef = ref<Http>('http');

/**
 * The HTTP kernel: Fastify with the runtime router, the generated routes of every model, discovery and the probes.
 * It gets ready once every module has mounted its routes and hooks; at a stop its listeners close after the streams
 * they carry have ended.
 */
export const httpModule = defineModule({
  name: 'http',
  phase: 'open',
  needs: { registry: registryRef, watch: watchRef, settings: settingsRef, logger: loggerRef },
  provides: httpRef,
  start({ registry: { registry, objects, feed }, watch: { watches }, settings, logger }, lifecycle) {
    const router = new DynamicRouter<HttpContext>();
    router.add(generatedRoutes(registry, objects, watches));
    let httpsPort: number | undefined;
    const discovery = discoveryRoutes(registry, () => httpsPort);
    router.add(discovery.routes);
    const longRunning = new LongRunningRequests();
    const drain = new Drain();
    const app = createApp({
      logger,
      router,
      longRunning,
      drain,
      trustProxy: settings.trustProxy,
      accessLog: settings.accessLog,
      corsOrigins: settings.corsOrigins,
      acceptsHost: hostPolicy({
        listenHost: settings.host,
        tlsHosts: settings.tlsHosts,
        allowedHosts: settings.allowedHosts,
      }),
      notReadyBecause: () => {
        if (feed?.relisting) return 'listing the store again: this replica fell behind its compacted history';
        if (feed?.unheard) return 'the store has not answered for a while: this replica cannot tell what is current';
        return feed && !feed.caughtUp
          ? `catching up with the store's changes (at revision ${feed.revision})`
          : undefined;
      },
    });
    lifecycle.onReady(async () => void (await app.ready()));
    drain.follow(app.server);
    let secure: SecureListener | undefined;
    // A stop drains (drain.ts): readiness goes at once, before the streams end; the listeners close once the requests
    // in flight are answered, or the drain's share of SVC_SHUTDOWN_TIMEOUT is up.
    lifecycle.onStop('streams', () => drain.start());
    lifecycle.onStop('listeners', async () => {
      const cut = await drain.settle(drainBudget(settings.shutdownTimeoutMs));
      if (cut > 0) logger.warn(`the shutdown timeout cut ${cut} request(s) still in flight`);
      await secure?.close();
      await app.close();
    });
    const listeners: Array<(listening: Listening) => void> = [];
    return {
      app,
      router,
      longRunning,
      onListening: (listener) => void listeners.push(listener),
      discover: discovery.discover,
      async listen() {
        await app.listen({ host: settings.host, port: settings.port });
        const address = app.server.address();
        const port = typeof address === 'object' && address ? address.port : settings.port;
        const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
        const listening: Listening = { url: `http://${host}:${port}` };
        if (settings.httpsPort !== undefined) {
          const material = await loadTlsMaterial({
            dataDir: settings.dataDir,
            certFile: settings.tlsCertFile,
            keyFile: settings.tlsKeyFile,
            hosts: [settings.host, ...settings.tlsHosts],
          });
          if (material.caReplaced) {
            logger.warn(
              `made a new CA (${material.caFile}) for hosts the old one does not permit: clients must trust it`,
            );
          }
          secure = await listenSecurely(app, { host: settings.host, port: settings.httpsPort, ...material, drain });
          listening.httpsUrl = secure.url;
          httpsPort = Number(new URL(secure.url).port);
          listening.caFile = material.caFile;
        }
        for (const listener of listeners) listener(listening);
        return listening;
      },
    };
  },
});

/** The part of a stop's time the requests in flight get: the rest (2 s, or half of a short timeout) closes the store. */
export function drainBudget(shutdownTimeoutMs: number): number {
  return Math.max(shutdownTimeoutMs - 2000, shutdownTimeoutMs / 2);
}
