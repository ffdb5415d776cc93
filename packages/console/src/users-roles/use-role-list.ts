import { errorMessage, hasPermission } from '@svc/console-shared';
import { MODULE_ANNOTATION } from '@svc/plugin-api';
import { computed, onMounted, ref } from 'vue';
import { displayNameOf, IMPLICIT_ROLES, isHidden, isTemplate, loadRoles, type RoleObject } from './roles';

/**
 * The Roles page's list: every role a person assigns or builds on (not `anonymous` and `authenticated`, which everyone
 * holds, nor hidden ones), roles first, then templates by module, each by display name.
 */
export function useRoleList() {
  const roles = ref<RoleObject[]>([]);
  const error = ref('');
  const mayManage = computed(() => hasPermission(['system:roles:manage']));

  onMounted(async () => {
    try {
      roles.value = [...(await loadRoles()).values()].filter(
        (r) => !IMPLICIT_ROLES.has(r.metadata.name) && !isHidden(r),
      );
    } catch (e) {
      error.value = errorMessage(e);
    }
  });
  const rows = computed(() =>
    [...roles.value].sort(
      (a, b) =>
        Number(isTemplate(a)) - Number(isTemplate(b)) ||
        (a.metadata.annotations?.[MODULE_ANNOTATION] ?? '').localeCompare(
          b.metadata.annotations?.[MODULE_ANNOTATION] ?? '',
        ) ||
        displayNameOf(a).localeCompare(displayNameOf(b), 'en'),
    ),
  );

  return { rows, error, mayManage };
}
