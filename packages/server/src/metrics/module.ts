import { httpRef } from '../api/module.js';
import { controllersRef } from '../controllers/module.js';
import { defineModule, ref } from '../kernel/module.js';
import { registryRef } from '../registry/module.js';
import { storeRef } from '../store/module.js';
import { watchRef } from '../watch/module.js';
import { createMetrics, type Metrics } from './metrics.js';

export const metricsRef = ref<Metrics>('metrics');

/** `/metrics` in Prometheus' format; the gate lets only callers allowed `get` on `/metrics` reach it. */
export const metricsModule = defineModule({
  name: 'metrics',
  phase: 'serve',
  needs: { store: storeRef, registry: registryRef, watch: watchRef, controllers: controllersRef, http: httpRef },
  provides: metricsRef,
  start({ store: { lease }, registry: { registry }, watch: { watches }, controllers, http }) {
    const metrics = createMetrics({ controllers, registry, watches, leads: () => lease.held });
    http.app.get('/metrics', async (_request, reply) => reply.type(metrics.contentType).send(await metrics.text()));
    return metrics;
  },
});
