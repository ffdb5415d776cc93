/**
 * Objects an earlier version of a plugin declared and the running one no longer does (an upgrade dropped them). They
 * are found in every served model by the owner label and svc's record of writing them (declared-digest.ts). One still
 * as svc wrote it is deleted, as the plugin's new version asks; one a user changed is the user's now: it is kept, its
 * record taken off (it is no longer a declaration, so later starts leave it alone), and the plugin's log says so.
 * A role is always deleted: nobody but the plugin changes one.
 */
import {
  DECLARED_DIGEST_ANNOTATION,
  type ExtensionObject,
  isApiError,
  isNotFound,
  type Logger,
  PLUGIN_NAME_LABEL,
} from '@svc/plugin-api';
import { createExtensionClient } from '../registry/client.js';
import { contentDigest, recordedDigest } from './declared-digest.js';
import { type DeclaredObjectsDeps, isRole } from './declared-objects.js';
import { pluginActor } from './plugin-context.js';

const keyOf = (object: ExtensionObject) => `${object.apiVersion}|${object.kind}|${object.metadata.name}`;

/** Deletes or lets go of what plugin `plugin` declared before and `declared` (what it declares now) leaves out. */
export async function removeUndeclared(
  deps: DeclaredObjectsDeps,
  plugin: string,
  declared: readonly ExtensionObject[],
  logger: Logger,
): Promise<void> {
  const current = new Set(declared.map(keyOf));
  const client = createExtensionClient(deps.registry, deps.objects, { actor: pluginActor(plugin) });
  for (const served of deps.registry.all()) {
    const model = { apiVersion: served.model.apiVersion, kind: served.model.kind };
    // The owner label is indexed: this reads only the plugin's own objects, however many others the model holds.
    const { items } = await client.list(model, { labelSelector: `${PLUGIN_NAME_LABEL}=${plugin}` });
    for (const object of items) {
      const recorded = recordedDigest(object);
      if (recorded === undefined || current.has(keyOf(object)) || object.metadata.deletionTimestamp) continue;
      const name = object.metadata.name;
      if (isRole(object) || contentDigest(object) === recorded) {
        await ignoringGone(client.delete(model, name));
        continue;
      }
      logger.warn(
        `${object.kind} "${name}" is no longer declared by this version; a user changed it, so it is kept as theirs`,
      );
      const { [DECLARED_DIGEST_ANNOTATION]: _record, ...annotations } = object.metadata.annotations ?? {};
      await ignoringGone(client.update({ ...object, metadata: { ...object.metadata, annotations } }));
    }
  }
}

/** Deleted or changed meanwhile by someone else: theirs to decide, and the next start looks again. */
async function ignoringGone(write: Promise<unknown>): Promise<void> {
  await write.catch((error: unknown) => {
    if (!isNotFound(error) && !(isApiError(error) && error.status === 409)) throw error;
  });
}
