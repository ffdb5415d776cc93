import { DEPENDENCIES_ANNOTATION, type ExtensionObject, isNotFound } from '@svc/plugin-api';
import { annotationList } from '../authz/roles.js';
import { ownerOf } from '../objects/ownership.js';
import { SYSTEM } from '../registry/admission.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { RoleService } from './role-service.js';

/**
 * Bindings, and dependencies on it, go with their role. Both were checked against their writer for the rules the role
 * had then; if they outlived the role, a later role of the same name (anyone's: a plugin's template, an
 * administrator's role) would hand its rules to their users. So the deletion of a role first deletes the bindings
 * naming it and removes it from other roles' dependencies, inside the role's own write (an admission effect: after
 * every check of the write passed, before the store): no moment exists in which they point at nothing. A role whose deletion waits on finalizers is cleaned the
 * same way again when it finally goes, catching what was made meanwhile.
 *
 * The one exception is a plugin removing its own role as it stops: bindings and dependencies stay and take effect
 * again when it starts (with the plugin's own template, bounded by what a plugin may grant); while they wait, a user
 * cannot create a role of that name (role-admission.ts).
 */
export function installRoleCascade(
  objects: ObjectService,
  roles: RoleService,
  served: { roles: ServedModel; bindings: ServedModel },
) {
  objects.admission.addEffect(served.roles.model.resource, async (request) => {
    if (!request.object.metadata.deletionTimestamp) return;
    const { actor } = request;
    if (actor.kind === 'plugin' && ownerOf(request.prevObject) === actor.plugin) return;
    const name = request.object.metadata.name;
    for (const binding of roles.bindingsTo(name)) {
      await ignoringGone(objects.delete(served.bindings, binding.metadata.name, { actor: SYSTEM }));
    }
    for (const dependent of roles.dependentsOf(name)) {
      if (dependent === name) continue;
      await ignoringGone(
        objects.patch(served.roles, dependent, (role) => withoutDependency(role, name), { actor: SYSTEM }),
      );
    }
  });
}

function withoutDependency(role: ExtensionObject, name: string): ExtensionObject {
  const annotations = { ...role.metadata.annotations };
  const kept = (annotationList({ annotations }, DEPENDENCIES_ANNOTATION) ?? []).filter((d) => d !== name);
  if (kept.length > 0) annotations[DEPENDENCIES_ANNOTATION] = JSON.stringify(kept);
  else delete annotations[DEPENDENCIES_ANNOTATION];
  return { ...role, metadata: { ...role.metadata, annotations } };
}

/** Deleted meanwhile by someone else: what we wanted. */
async function ignoringGone(write: Promise<unknown>): Promise<void> {
  await write.catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
}
