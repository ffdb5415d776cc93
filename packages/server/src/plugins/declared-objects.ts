/**
 * The objects a plugin declares in `extensions/`: written when it starts, as the plugin and labelled with its name
 * (objects/ownership.ts), and deleted when it stops. Ownership is what keeps a declaration from taking over an object
 * someone else made.
 */
import type { ExtensionClient, ExtensionObject, Logger } from '@svc/plugin-api';
import { ROLE_TEMPLATE_LABEL } from '../authz/roles.js';
import { withFinalizers } from '../objects/metadata.js';
import { describeOwner, ownerOf } from '../objects/ownership.js';
import { createExtensionClient } from '../registry/client.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { pluginActor } from './plugin-context.js';
import { PLUGIN_NAME_LABEL } from './plugin-model.js';

export interface DeclaredObjectsDeps {
  registry: ModelRegistry;
  objects: ObjectService;
  /**
   * Replicas on a shared store: resolves once this server has applied every change committed so far. An object found
   * in the store may have been written by another replica a moment ago; the checks that follow (a role's dependencies)
   * read this server's caches, which must have heard of it first.
   */
  catchUp?: () => Promise<void>;
}

/** How long a stop waits for declared objects held by finalizers to go. */
const FINALIZE_WAIT_MS = 5000;

/**
 * Creates a declared object, or updates it when it exists and differs; returns it as stored. An object of that name
 * that the plugin does not own (someone made it through the API, or another plugin declared it) is never taken
 * over: the start fails naming it and its owner. An unchanged object is admitted again as it is stored, so what it
 * grants is checked by today's rules even when nothing is written; one they refuse is deleted.
 */
export async function applyDeclared(
  deps: DeclaredObjectsDeps,
  plugin: string,
  source: string,
  declared: ExtensionObject,
  logger: Logger,
): Promise<ExtensionObject> {
  const object: ExtensionObject = {
    ...declared,
    metadata: {
      ...declared.metadata,
      labels: { ...declared.metadata?.labels, [PLUGIN_NAME_LABEL]: plugin },
      ...withModelFinalizers(deps.registry, declared),
    },
  };
  warnOnTemplateName(plugin, source, object, logger);
  const client = createExtensionClient(deps.registry, deps.objects, {
    allowUnprefixedLabels: false,
    actor: pluginActor(plugin),
  });
  // Replicas starting the same plugin at once race to write its objects: the loser of a create or update (409) reads
  // what the winner wrote and goes on from there.
  for (let attempt = 1; ; attempt++) {
    try {
      return await applyOnce(deps, plugin, client, object);
    } catch (error) {
      if ((error as { status?: number }).status !== 409 || attempt >= 3) {
        throw new Error(`${source} (${object.kind} "${object.metadata?.name}"): ${(error as Error).message}`);
      }
      await deps.catchUp?.();
    }
  }
}

async function applyOnce(
  deps: DeclaredObjectsDeps,
  plugin: string,
  client: ReturnType<typeof createExtensionClient>,
  object: ExtensionObject,
): Promise<ExtensionObject> {
  const existing = await client.fetch(object, object.metadata.name);
  if (!existing) return await client.create(object);
  await deps.catchUp?.();
  if (ownerOf(existing) !== plugin) {
    throw new Error(
      `it already exists and belongs to ${describeOwner(ownerOf(existing))}; a plugin never takes over an object it did not declare`,
    );
  }
  if (sameDeclaredContent(existing, object)) {
    await readmit(deps, plugin, existing).catch(async (error: unknown) => {
      // Stored before today's rules refused it: it is the plugin's own, and must not keep granting meanwhile.
      await client.delete(existing, existing.metadata.name);
      throw error;
    });
    return existing;
  }
  return await client.update({ ...object, metadata: { ...object.metadata, version: existing.metadata.version } });
}

/**
 * Deletes declared objects, the last declared first. The caller does this while the plugin's reconcilers still run, so
 * finalizers they hold (on objects of the plugin's own models) are honoured; a bounded wait keeps a stuck finalizer
 * from holding up the stop.
 */
export async function removeDeclared(client: ExtensionClient, declared: readonly ExtensionObject[]): Promise<void> {
  const finalizing: ExtensionObject[] = [];
  for (const object of [...declared].reverse()) {
    const deleted = await client.delete(object, object.metadata.name).catch(() => undefined);
    if (deleted?.metadata.deletionTimestamp) finalizing.push(object);
  }
  await waitUntilGone(client, finalizing, FINALIZE_WAIT_MS);
}

/**
 * The declaration's finalizers as a create would store them: its own, then its model's (ModelDefinition.finalizers).
 * Compared and written so, an unchanged declaration stays unchanged, and a start never takes the model's finalizer
 * off an object its controller holds.
 */
function withModelFinalizers(registry: ModelRegistry, declared: ExtensionObject): { finalizers?: string[] } {
  const added = registry.findByKind(declared.apiVersion, declared.kind)?.model.finalizers ?? [];
  return added.length === 0 ? {} : { finalizers: withFinalizers(declared.metadata?.finalizers, added) };
}

/** Runs the admission checks of an unchanged write of `object` as the plugin, without writing. */
async function readmit(deps: DeclaredObjectsDeps, plugin: string, object: ExtensionObject): Promise<void> {
  const served = deps.registry.findByKind(object.apiVersion, object.kind);
  if (!served) return;
  await deps.objects.admission.run({
    operation: 'update',
    served,
    object,
    prevObject: object,
    actor: pluginActor(plugin),
  });
}

async function waitUntilGone(client: ExtensionClient, objects: ExtensionObject[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (const object of objects) {
    while (Date.now() < deadline && (await client.fetch(object, object.metadata.name).catch(() => undefined))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** The seed's convention for role templates: `<plugin>-role-<view|manage>-<resources>`. A warning, not a refusal. */
function warnOnTemplateName(
  plugin: string,
  source: string,
  object: ExtensionObject,
  logger: { warn(m: string): void },
) {
  if (object.kind !== 'Role' || object.metadata.labels?.[ROLE_TEMPLATE_LABEL] !== 'true') return;
  if (new RegExp(`^${plugin}-role-(view|manage)-[a-z0-9]`).test(object.metadata.name)) return;
  logger.warn(
    `${source}: role template "${object.metadata.name}" should be named ${plugin}-role-<view|manage>-<resources>`,
  );
}

/** Equal apart from server-kept metadata and status: an unchanged declaration is not written again. */
function sameDeclaredContent(existing: ExtensionObject, declared: ExtensionObject): boolean {
  const strip = ({ metadata, status: _status, ...rest }: ExtensionObject) => ({
    ...rest,
    labels: metadata.labels ?? {},
    annotations: metadata.annotations ?? {},
    finalizers: metadata.finalizers ?? [],
  });
  return JSON.stringify(strip(existing)) === JSON.stringify(strip(declared));
}
