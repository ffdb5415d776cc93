import { isNotFound, KIND } from '@svc/plugin-api';
import { type Actor, SYSTEM } from '../registry/admission.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { RoleBindingObject } from './models.js';
import type { RoleService } from './role-service.js';

/**
 * Takes `username` out of one RoleBinding, deleting the binding when nobody is left in it. The change is applied to
 * the binding as stored (a patch, not a stale copy), so concurrent removals of different subjects both land; a
 * binding that is gone meanwhile is fine.
 */
export async function removeSubject(
  objects: ObjectService,
  bindings: ServedModel,
  bindingName: string,
  username: string,
  actor: Actor = SYSTEM,
): Promise<void> {
  const isThem = (s: RoleBindingObject['subjects'][number]) => s.kind === KIND.User && s.name === username;
  const ignoreGone = (error: unknown) => {
    // Gone meanwhile: nothing of theirs is left in it.
    if (!isNotFound(error)) throw error;
  };
  const change = (binding: RoleBindingObject) => {
    const subjects = (binding.subjects ?? []).filter((s) => !isThem(s));
    if (subjects.length === (binding.subjects ?? []).length) throw NOT_THERE;
    if (subjects.length === 0) throw NOBODY_LEFT;
    return { ...binding, subjects };
  };
  try {
    await objects.patch<RoleBindingObject>(bindings, bindingName, change, { actor });
  } catch (error) {
    if (error === NOT_THERE) return;
    if (error !== NOBODY_LEFT) return ignoreGone(error);
    await objects.delete(bindings, bindingName, { actor }).catch(ignoreGone);
  }
}

/** Thrown out of a patch to stop it: a binding left with nobody is deleted instead; one without them is not written. */
const NOBODY_LEFT = Symbol('nobody left');
const NOT_THERE = Symbol('not there');

/**
 * Takes `username` out of every RoleBinding, as the service. Run when a user is deleted (so their grants do not
 * outlive them) and before a user is created (so a new user never starts with a binding that predates them).
 */
export async function removeFromAllBindings(
  objects: ObjectService,
  roles: RoleService,
  bindings: ServedModel,
  username: string,
): Promise<void> {
  for (const binding of roles.bindingsOf(username)) {
    await removeSubject(objects, bindings, binding.metadata.name, username);
  }
}
