/**
 * Garbage collection of deleted objects: an object whose `deletionTimestamp` is set and whose finalizers are all gone
 * is removed. The object service already removes it in the write that empties its finalizers (as Kubernetes' registry
 * does); this core reconciler, one per model, sweeps whatever is left anyway (objects stored before that rule, or
 * written by other means), at start and on every change of an object being deleted.
 */
import type { ExtensionObject, Logger } from '@svc/plugin-api';
import { parseFieldSelector } from '../index/selectors.js';
import { CORE, type Owner } from '../objects/owner.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { selectionOf } from '../watch/selection.js';
import type { ControllerManager } from './controller-manager.js';
import type { ReconcilerRunner } from './reconciler-runner.js';

/** The collector is the service's own: its runners are removed one by one, as models go. */
const GC_OWNER: Owner = CORE;

/** True for an object that is being deleted and has no finalizer left. Pure. */
export function isGarbage(object: ExtensionObject | undefined): boolean {
  return Boolean(object?.metadata.deletionTimestamp) && !object?.metadata.finalizers?.length;
}

export function startGarbageCollector(
  deps: { manager: ControllerManager; registry: ModelRegistry; objects: ObjectService },
  logger: Logger,
): () => void {
  const runners = new Map<ServedModel, ReconcilerRunner>();
  const deleting = parseFieldSelector('metadata.deletionTimestamp!=');
  const collect = (served: ServedModel) => {
    const runner = deps.manager.run(
      GC_OWNER,
      {
        name: `garbage-collector/${served.model.resource}`,
        served,
        selection: selectionOf(served.index, [], deleting),
        workers: 1,
        reconcile: async ({ name }) => {
          const object = await deps.objects.find(served, name);
          // Rewriting it unchanged is enough: the object service removes an object being deleted without finalizers.
          if (isGarbage(object)) await deps.objects.patch(served, name, (current) => current);
        },
      },
      logger,
    );
    runners.set(served, runner);
  };
  for (const served of deps.registry.all()) collect(served);
  return deps.registry.onChange((event, served) => {
    if (event === 'registered') return collect(served);
    const runner = runners.get(served);
    runners.delete(served);
    if (runner) void deps.manager.remove(GC_OWNER, runner);
  });
}
