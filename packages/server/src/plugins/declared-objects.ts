/**
 * The objects a plugin declares in `extensions/`, written as the plugin and labelled with its name
 * (objects/ownership.ts); ownership is what keeps a declaration from taking over an object someone else made.
 *
 * A start creates what is missing and brings an object in line with a changed declaration only while it is as svc
 * last wrote it (declared-digest.ts): a user's change is kept, whatever the plugin's next version declares. Roles are
 * the exception: nobody but the plugin changes them (rbac/role-admission.ts), they are deleted when it stops (what
 * they grant lapses with its API) and written as declared when it starts. Everything else stays when it stops.
 */
import {
  DECLARED_DIGEST_ANNOTATION,
  type ExtensionClient,
  type ExtensionObject,
  KIND,
  type Logger,
  PLUGIN_NAME_LABEL,
  ROLE_TEMPLATE_LABEL,
} from '@svc/plugin-api';
import { withFinalizers } from '../objects/metadata.js';
import { describeOwner, ownerOf } from '../objects/ownership.js';
import { createExtensionClient } from '../registry/client.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { contentDigest, recordedDigest, storedDigest } from './declared-digest.js';
import { pluginActor } from './plugin-context.js';

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

/** A declared object as a start left it; `created` when this start made it (a failed start deletes those again). */
export interface AppliedDeclaration {
  object: ExtensionObject;
  created: boolean;
}

/** How long a stop waits for declared objects held by finalizers to go. */
const FINALIZE_WAIT_MS = 5000;

/** Roles (the RBAC model's): removed at each stop and written as declared at each start. */
export function isRole(object: Pick<ExtensionObject, 'apiVersion' | 'kind'>): boolean {
  return object.kind === KIND.Role && object.apiVersion === 'v1alpha1';
}

/**
 * Creates a declared object when it is missing; updates it when the declaration changed and the object is as svc last
 * wrote it; otherwise leaves it as it is (a user changed it: a changed declaration is then not applied, and the
 * plugin's log says so). Returns it as stored. An object of that name that the plugin does not own (someone made it
 * through the API, or another plugin declared it) is never taken over: the start fails naming it and its owner. An
 * object left as it is is admitted again as stored, so what it grants is checked by today's rules even when nothing
 * is written; one they refuse is deleted.
 */
export async function applyDeclared(
  deps: DeclaredObjectsDeps,
  plugin: string,
  source: string,
  declared: ExtensionObject,
  logger: Logger,
): Promise<AppliedDeclaration> {
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
      return await applyOnce(deps, plugin, client, object, (message) => logger.warn(`${source}: ${message}`));
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
  client: ExtensionClient,
  object: ExtensionObject,
  warn: (message: string) => void,
): Promise<AppliedDeclaration> {
  const wanted = storedDigest(deps.registry.findByKind(object.apiVersion, object.kind)?.model, object);
  const desired = withDigest(object, wanted);
  const existing = await client.fetch(object, object.metadata.name);
  if (!existing) return { object: await client.create(desired), created: true };
  await deps.catchUp?.();
  if (ownerOf(existing) !== plugin) {
    throw new Error(
      `it already exists and belongs to ${describeOwner(ownerOf(existing))}; a plugin never takes over an object it did not declare`,
    );
  }
  const recorded = recordedDigest(existing);
  const current = contentDigest(existing);
  if (current === wanted) {
    // Already what is declared; only a missing record of it is written (an object stored before svc kept one).
    if (recorded === wanted) return { object: await keepAsStored(deps, plugin, client, existing), created: false };
    return { object: await replaceOwn(client, existing, withDigest(existing, wanted)), created: false };
  }
  if (isRole(existing) || recorded === current) {
    // As svc left it (a role always is): the declaration, changed since, replaces it. Finalizers stay, so a start
    // never takes one off an object a controller holds.
    const finalizers = withFinalizers(existing.metadata.finalizers, desired.metadata.finalizers ?? []);
    const replacement: ExtensionObject = {
      ...desired,
      metadata: { ...desired.metadata, finalizers, version: existing.metadata.version },
      ...(existing.status === undefined ? {} : { status: existing.status }),
    };
    if (finalizers.length === 0) delete replacement.metadata.finalizers;
    return { object: await replaceOwn(client, existing, replacement), created: false };
  }
  if (recorded !== wanted) {
    warn(
      `${object.kind} "${object.metadata.name}" was changed since svc wrote it, so this version's declaration of it ` +
        'was not applied; the changed object is kept',
    );
  }
  return { object: await keepAsStored(deps, plugin, client, existing), created: false };
}

/**
 * Writes `replacement` over the plugin's own `existing`. If today's rules refuse the write, the stored object goes: it
 * is the plugin's own, and must not keep granting what they refuse (a conflict is a race, retried by the caller).
 */
async function replaceOwn(
  client: ExtensionClient,
  existing: ExtensionObject,
  replacement: ExtensionObject,
): Promise<ExtensionObject> {
  try {
    return await client.update(replacement);
  } catch (error) {
    if ((error as { status?: number }).status !== 409) await client.delete(existing, existing.metadata.name);
    throw error;
  }
}

/** Leaves a stored object as it is, once today's admission rules accept it as the plugin's. */
async function keepAsStored(
  deps: DeclaredObjectsDeps,
  plugin: string,
  client: ExtensionClient,
  existing: ExtensionObject,
): Promise<ExtensionObject> {
  await readmit(deps, plugin, existing).catch(async (error: unknown) => {
    // Stored before today's rules refused it: it is the plugin's own, and must not keep granting meanwhile.
    await client.delete(existing, existing.metadata.name);
    throw error;
  });
  return existing;
}

function withDigest(object: ExtensionObject, digest: string): ExtensionObject {
  const annotations = { ...object.metadata.annotations, [DECLARED_DIGEST_ANNOTATION]: digest };
  return { ...object, metadata: { ...object.metadata, annotations } };
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
  if (object.kind !== KIND.Role || object.metadata.labels?.[ROLE_TEMPLATE_LABEL] !== 'true') return;
  if (new RegExp(`^${plugin}-role-(view|manage)-[a-z0-9]`).test(object.metadata.name)) return;
  logger.warn(
    `${source}: role template "${object.metadata.name}" should be named ${plugin}-role-<view|manage>-<resources>`,
  );
}
