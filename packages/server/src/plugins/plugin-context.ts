import type {
  CustomRoute,
  ExtensionClient,
  Logger,
  ModelDefinition,
  PluginContext,
  PluginSettings,
  ReconcilerDefinition,
} from '@svc/plugin-api';
import { customRouteProblem, groupOf } from '../api/custom-routes.js';

export { pluginLogger } from '../controllers/logger.js';

import { pluginServiceGroups } from '../objects/domains.js';
import { isGroupOwnedBy, normalizeModelDefinition } from '../objects/model-definition.js';
import { pluginOwner } from '../objects/owner.js';
import type { Actor } from '../registry/admission.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';

/** Who a plugin's writes are made as: its client's, and the host's for the objects it declares. */
export function pluginActor(plugin: string): Actor {
  return { kind: 'plugin', plugin };
}

/** Everything a plugin registered during start, so that stopping it can remove exactly that. */
export interface PluginContributions {
  models: ServedModel[];
  routes: CustomRoute[];
  /** Started by the host once `start` has succeeded, stopped when the plugin stops. */
  reconcilers: ReconcilerDefinition[];
  /** Its settings (plugin-settings.ts), whose listeners are dropped when it stops. */
  settings?: PluginSettings & { close(): void };
}

/** The settings of a plugin whose host keeps none (unit tests): no values, no changes. */
const NO_SETTINGS: PluginSettings = { get: async () => ({}), onChange: () => () => {} };

/**
 * Builds the context handed to a plugin's `start`. A plugin is given its services explicitly (Backstage's habit) and
 * everything it registers is recorded in `contributions`. Routes are collected here and mounted by the host only once
 * `start` has succeeded.
 */
export function createPluginContext(
  name: string,
  /** `code`: the digest of the plugin's code (by content), which its models' index snapshots are written under. */
  deps: {
    registry: ModelRegistry;
    client: ExtensionClient;
    logger: Logger;
    code?: string;
    /** The other plugin whose models or routes are in `group` now, if any: a group belongs to one plugin. */
    groupTakenBy?: (group: string) => string | undefined;
  },
  contributions: PluginContributions,
): PluginContext {
  return {
    name,
    logger: deps.logger,
    client: deps.client,
    settings: contributions.settings ?? NO_SETTINGS,
    models: {
      async register(definition) {
        // The registry keeps definitions over any object: a plugin's object type only narrows what its index
        // functions receive, and they are called with objects of this model alone, each checked by its schema first.
        const model = normalizeModelDefinition(definition as ModelDefinition, { kind: 'plugin', name });
        refuseTakenGroup(deps.groupTakenBy, model.group, `model ${model.kind} (${model.apiVersion})`, name);
        contributions.models.push(await deps.registry.register(model, pluginOwner(name), deps.code));
      },
    },
    routes: {
      add(route: CustomRoute) {
        const problem = customRouteProblem(route);
        if (problem) {
          // The seed: a custom API without a <group>/<version> declaration is ignored.
          deps.logger.warn(`custom route ${describe(route)} is not mounted: ${problem}`);
          return;
        }
        if (!isGroupOwnedBy(groupOf(route), name)) {
          throw new Error(
            `custom route ${describe(route)} is in group "${groupOf(route)}", which plugin "${name}" does not own; ` +
              `use ${pluginServiceGroups(name).join(', ')} or a domain of your own`,
          );
        }
        refuseTakenGroup(deps.groupTakenBy, groupOf(route), `custom route ${describe(route)}`, name);
        contributions.routes.push(route);
      },
    },
    reconcilers: {
      add(definition: ReconcilerDefinition) {
        if (typeof definition?.reconcile !== 'function' || !definition.name || !definition.model) {
          throw new Error(
            `reconciler ${String(definition?.name)} of plugin "${name}" needs a name, a model and a reconcile function`,
          );
        }
        if (contributions.reconcilers.some((r) => r.name === definition.name)) {
          throw new Error(`plugin "${name}" adds two reconcilers named "${definition.name}"`);
        }
        contributions.reconcilers.push(definition);
      },
    },
  };
}

/**
 * A domain group is the plugin's that serves it first: the groups a plugin owns bound what its role templates may
 * grant (authz/plugin-grants.ts), so a second plugin in the same group could open the first one's objects (to
 * `anonymous`, say). Its start fails instead, naming the owner.
 */
function refuseTakenGroup(
  groupTakenBy: ((group: string) => string | undefined) | undefined,
  group: string,
  what: string,
  plugin: string,
): void {
  const owner = groupTakenBy?.(group);
  if (owner === undefined || owner === plugin) return;
  throw new Error(
    `${what} is in group "${group}", which plugin "${owner}" owns (its models or routes are there); ` +
      'a group belongs to one plugin: use a group of your own',
  );
}

function describe(route: Partial<CustomRoute>): string {
  return `${String(route.method)} ${String(route.path)}${route.apiVersion ? ` (${route.apiVersion})` : ''}`;
}
