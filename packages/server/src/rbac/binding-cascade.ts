import { isApiError } from '@svc/plugin-api';
import { ownerOf } from '../objects/ownership.js';
import { SYSTEM } from '../registry/admission.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { RoleService } from './role-service.js';

/**
 * Bindings go with their role. A binding was checked against its writer for the rules its role had then; if it
 * outlived the role, a later role of the same name (anyone's) would hand its rules to the binding's users. So the
 * deletion of a role first deletes the bindings naming it, inside the role's own write (an admission step, before the
 * store): no moment exists in which they point at nothing. A role whose deletion waits on finalizers is cleaned the
 * same way again when it finally goes, catching bindings made meanwhile.
 *
 * The one exception is a plugin removing its own role as it stops: those bindings stay and take effect again when it
 * starts (with the plugin's own template, bounded by what a plugin may grant); while they wait, a user cannot create
 * a role of that name (role-admission.ts).
 */
export function installBindingCascade(objects: ObjectService, roles: RoleService, served: { roles: ServedModel; bindings: ServedModel }) {
  objects.admission.add(served.roles.model.resource, async (request) => {
    if (!request.object.metadata.deletionTimestamp) return;
    const { actor } = request;
    if (actor.kind === 'plugin' && ownerOf(request.prevObject) === actor.plugin) return;
    for (const binding of roles.bindingsTo(request.object.metadata.name)) {
      await objects.delete(served.bindings, binding.metadata.name, { actor: SYSTEM }).catch((error: unknown) => {
        // Deleted meanwhile by someone else: what we wanted.
        if (!isApiError(error) || error.status !== 404) throw error;
      });
    }
  });
}
