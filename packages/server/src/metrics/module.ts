import { httpRef } from '../api/module.js';
import { controllersRef } from '../controllers/module.js';
import { defineModule, ref } from '../kernel/module.js';
import { settingsRef } from '../kernel/root.js';
import { registryRef } from '../registry/module.js';
import { storeRef } from '../store/module.js';
import { HOST_VERSION } from '../version.js';
import { watchRef } from '../watch/module.js';
import { createMetrics, type Metrics } from './metrics.js';
import { RequestMetrics } from './request-metrics.js';

export const metricsRef = ref<Metrics>('metrics');

/**
 * `/metrics` in Prometheus' format; the gate lets only callers allowed `get` on `/metrics` reach it. Unless request
 * metrics are off (SVC_REQUEST_METRICS), every request is counted in Fastify's `onResponse`, and every long-running
 * one (a watch, the console's events) as it starts.
 */
export const metricsModule = defineModule({
  name: 'metrics',
  phase: 'serve',
  needs: {
    settings: settingsRef,
    store: storeRef,
    registry: registryRef,
    watch: watchRef,
    controllers: controllersRef,
    http: httpRef,
  },
  provides: metricsRef,
  start({ settings, store: { store, lease }, registry: { registry }, watch: { watches }, controllers, http }) {
    let requests: RequestMetrics | undefined;
    if (settings.requestMetrics) {
      requests = new RequestMetrics({
        serves: (group, version, resource, subresource) => {
          const served = registry.findByRoute(group, version, resource);
          return (
            served !== undefined &&
            (subresource === '' || (subresource === 'status' && served.model.statusSubresource === true))
          );
        },
        routePattern: (method, routePath) => http.router.find(method, routePath)?.route.path,
      });
      http.app.addHook('onResponse', requests.answered);
      http.longRunning.onStart(requests.streamStarted);
    }
    const metrics = createMetrics({
      controllers,
      registry,
      watches,
      leads: () => lease.held,
      build: { version: HOST_VERSION, store: store.dialect },
      requests,
    });
    http.app.get('/metrics', async (_request, reply) => reply.type(metrics.contentType).send(await metrics.text()));
    return metrics;
  },
});
