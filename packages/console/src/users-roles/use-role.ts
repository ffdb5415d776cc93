import { client, errorMessage, hasPermission } from '@svc/console-shared';
import { DEPENDENCIES_ANNOTATION, type EffectivePermissions } from '@svc/plugin-api';
import { useConfirm } from 'primevue/useconfirm';
import { useToast } from 'primevue/usetoast';
import { computed, onMounted, ref } from 'vue';
import { useRouter } from 'vue-router';
import {
  displayNameOf,
  effectivePermissions,
  listAnnotation,
  loadRoles,
  ROLES,
  type RoleObject,
  reachedText,
  sourceOf,
} from './roles';

/**
 * One role as its page shows it: where it comes from, what it depends on, its effective rules with the origin of each,
 * and (for a custom role, with `system:roles:manage`) its deletion.
 */
export function useRole(name: () => string) {
  const router = useRouter();
  const confirm = useConfirm();
  const toast = useToast();

  const roles = ref<Map<string, RoleObject>>(new Map());
  const effective = ref<EffectivePermissions>();
  const error = ref('');
  const role = computed(() => roles.value.get(name()));
  const source = computed(() => (role.value ? sourceOf(role.value) : undefined));
  const editable = computed(() => source.value?.kind === 'custom' && hasPermission(['system:roles:manage']));

  onMounted(async () => {
    try {
      roles.value = await loadRoles();
      if (!role.value) throw new Error(`role "${name()}" not found`);
      effective.value = await effectivePermissions([name()]);
    } catch (e) {
      error.value = e instanceof Error && !('status' in e) ? e.message : errorMessage(e);
    }
  });

  const nameOf = (role: string) => displayNameOf(roles.value.get(role), role);
  /** Where a rule comes from: the role itself, or how expansion reached the role that carries it. */
  function origin(roleName: string): string {
    if (roleName === name()) return 'its own';
    const how = effective.value?.reachedBy[roleName];
    return `${nameOf(roleName)} (${how ? reachedText(how, roles.value) : 'held'})`;
  }
  const dependencies = computed(() => (role.value ? listAnnotation(role.value, DEPENDENCIES_ANNOTATION) : []));

  function remove() {
    confirm.require({
      header: `Delete role ${name()}?`,
      message: `Role ${nameOf(name())} will be deleted, and the users bound to it lose what it grants.`,
      acceptProps: { label: 'Delete', severity: 'danger' },
      rejectProps: { label: 'Cancel', severity: 'secondary' },
      accept: async () => {
        try {
          await client.resource(ROLES).delete(name());
          toast.add({ severity: 'success', summary: `Deleted ${name()}`, life: 3000 });
          await router.push({ name: 'Roles' });
        } catch (e) {
          error.value = errorMessage(e);
        }
      },
    });
  }

  return { role, effective, error, source, editable, dependencies, nameOf, origin, remove };
}
