import { defineModule, ref } from '../kernel/module.js';
import { loggerRef, optionsRef } from '../kernel/root.js';
import { registryRef } from '../registry/module.js';
import { storeRef } from '../store/module.js';
import { watchRef } from '../watch/module.js';
import { ControllerManager } from './controller-manager.js';
import { startGarbageCollector } from './garbage-collector.js';
import { pluginLogger } from './logger.js';
import type { QueueOptions } from './work-queue.js';

export interface ControllersOptions {
  /** Retry backoff of reconcilers (default 10 ms doubling up to 60 s). */
  reconcileBackoff?: QueueOptions;
}

export const controllersRef = ref<ControllerManager>('controllers');

/**
 * The controller manager and garbage collection. Controllers lead once the server is ready to serve and the lease is
 * held (a first pass over a million objects beside the boot delayed serving by 1.3 s, and Kubernetes' controllers
 * too start after the API serves); leadership follows the lease from then on. At a stop they finish the reconciles in
 * progress before the indexes are written down.
 */
export const controllersModule = defineModule({
  name: 'controllers',
  phase: 'open',
  needs: {
    store: storeRef,
    registry: registryRef,
    watch: watchRef,
    logger: loggerRef,
    options: optionsRef<ControllersOptions>(),
  },
  provides: controllersRef,
  start({ store: { lease, fenced }, registry: { registry, objects }, watch: { hub }, logger, options }, lifecycle) {
    const controllers = new ControllerManager({
      registry,
      hub,
      readRevision: (served, name) => objects.readRevision(served, name),
      queueOptions: options.reconcileBackoff,
      leading: false,
      fenced,
    });
    let ready = false;
    lease.onChange((held) => {
      logger.info(
        { epoch: lease.epoch },
        held ? 'this replica leads: controllers start' : 'this replica stopped leading',
      );
      if (!ready) return;
      void controllers.setLeading(held).catch((error: unknown) => logger.error({ err: error }, 'handing over failed'));
    });
    const stopGarbageCollector = startGarbageCollector(
      { manager: controllers, registry, objects },
      pluginLogger(logger, 'core'),
    );
    lifecycle.onReady(async () => {
      ready = true;
      await controllers.setLeading(lease.held);
    });
    lifecycle.onStop('writers', async () => {
      stopGarbageCollector();
      await controllers.stopAll();
    });
    return controllers;
  },
});
