/**
 * An uninstall that deletes the plugin's data (`DELETE …/plugins/{name}?data=delete`): the objects of its models, and
 * every object it owns in other models (what it declared in `extensions/`, whichever version declared it, and what
 * its code labelled as its own). Users' bindings to its role templates are users' objects and stay, as at any stop.
 */
import { isNotFound, KIND, type Logger, PLUGIN_GROUP, PLUGIN_NAME_LABEL } from '@svc/plugin-api';
import { pluginOwner } from '../objects/owner.js';
import { createExtensionClient } from '../registry/client.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { pluginActor } from './plugin-context.js';

export interface PluginDataDeps {
  registry: ModelRegistry;
  objects: ObjectService;
}

/** How long the plugin's own controllers get to let go of the finalizers they hold on its objects. */
const FINALIZE_WAIT_MS = 10_000;

/**
 * Deletes what plugin `name` owns in the models served now. Run before the plugin stops: the objects of its own models
 * are deleted while its reconcilers run, so the finalizers they hold are honoured (for up to 10 s; what is left then
 * goes with `purgeModels` once it has stopped). Answers how many objects were deleted.
 */
export async function deleteServedData(deps: PluginDataDeps, name: string, logger: Logger): Promise<number> {
  const { registry, objects } = deps;
  const actor = pluginActor(name);
  const client = createExtensionClient(registry, objects, { actor });
  const ownModels: ServedModel[] = [];
  let deleted = 0;
  for (const served of registry.all()) {
    if (served.owner === pluginOwner(name)) {
      ownModels.push(served);
      deleted += await objects.deleteCollection(served, { labels: [], fields: [] }, { actor });
      continue;
    }
    const model = { apiVersion: served.model.apiVersion, kind: served.model.kind };
    const { items } = await client.list(model, { labelSelector: `${PLUGIN_NAME_LABEL}=${name}` });
    for (const object of items) {
      await client.delete(model, object.metadata.name).then(
        () => deleted++,
        (error: unknown) => {
          // Deleted meanwhile by someone else: what we wanted.
          if (!isNotFound(error)) throw error;
        },
      );
    }
  }
  // Its settings (plugin-settings.ts) are named after it rather than labelled: administrators write them.
  const settings = { apiVersion: `${PLUGIN_GROUP}/v1alpha1`, kind: KIND.PluginSetting };
  if (registry.all().some((s) => s.model.group === PLUGIN_GROUP && s.model.kind === KIND.PluginSetting)) {
    await client.delete(settings, name).then(
      () => deleted++,
      (error: unknown) => {
        if (!isNotFound(error)) throw error;
      },
    );
  }
  const deadline = Date.now() + FINALIZE_WAIT_MS;
  while (Date.now() < deadline && ownModels.some((served) => served.index.size > 0)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  logger.info(`uninstall: deleted ${deleted} objects of the plugin's data`);
  return deleted;
}

/**
 * Removes what is left of the plugin's models once it has stopped (`resources`: the store resources of every model it
 * registered since it was installed, from its status): objects whose finalizers were not let go in time, or all of
 * them when it was not running. A resource another plugin serves now is not the uninstalled one's: it is left alone.
 */
export async function purgeModels(deps: PluginDataDeps, resources: readonly string[], logger: Logger): Promise<void> {
  for (const resource of resources) {
    const removed = await deps.registry.purgeUnserved(resource);
    if (removed === undefined) logger.warn(`uninstall: ${resource} is served by another plugin now; its objects stay`);
    else if (removed > 0) logger.info(`uninstall: removed ${removed} objects of ${resource} from the store`);
  }
}
