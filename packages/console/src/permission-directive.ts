import type { Directive } from 'vue';
import { allows } from './permissions';
import { session } from './session';

/**
 * `v-permission="['plugin:people:manage']"` (`v-permission.any` for one-of): removes the element when the signed-in
 * user's UI permissions do not allow it, as Halo's directive does; registered globally, so it needs no import.
 */
export const permissionDirective: Directive<HTMLElement, string[]> = {
  mounted(el, binding) {
    if (!allows(session.user?.uiPermissions ?? [], binding.value, binding.modifiers.any === true)) el.remove();
  },
};
