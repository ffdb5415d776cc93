import { hasPermission } from '@svc/console-shared';
import type { Directive } from 'vue';

/**
 * `v-permission="['plugin:people:manage']"` (`v-permission.any` for one-of): removes the element when the signed-in
 * user's UI permissions do not allow it, as Halo's directive does; registered globally, so it needs no import. When
 * the user's UI permissions change, the layout renders the page afresh, so the directive decides again.
 */
export const permissionDirective: Directive<HTMLElement, string[]> = {
  mounted(el, binding) {
    if (!hasPermission(binding.value, binding.modifiers.any === true)) el.remove();
  },
};
