import { client, errorMessage, hasPermission, t } from '@svc/console-shared';
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
      if (!role.value) throw new Error(t('roles.notFound', { name: name() }));
      effective.value = await effectivePermissions([name()]);
    } catch (e) {
      error.value = e instanceof Error && !('status' in e) ? e.message : errorMessage(e);
    }
  });

  const nameOf = (role: string) => displayNameOf(roles.value.get(role), role);
  /** Where a rule comes from: the role itself, or how expansion reached the role that carries it. */
  function origin(roleName: string): string {
    if (roleName === name()) return t('roles.itsOwn');
    const how = effective.value?.reachedBy[roleName];
    return `${nameOf(roleName)} (${how ? reachedText(how, roles.value) : t('roles.held')})`;
  }
  const dependencies = computed(() => (role.value ? listAnnotation(role.value, DEPENDENCIES_ANNOTATION) : []));

  function remove() {
    confirm.require({
      header: t('roles.deleteHeader', { name: name() }),
      message: t('roles.deleteMessage', { name: nameOf(name()) }),
      acceptProps: { label: t('common.delete'), severity: 'danger' },
      rejectProps: { label: t('common.cancel'), severity: 'secondary' },
      accept: async () => {
        try {
          await client.resource(ROLES).delete(name());
          toast.add({ severity: 'success', summary: t('roles.deleted', { name: name() }), life: 3000 });
          await router.push({ name: 'Roles' });
        } catch (e) {
          error.value = errorMessage(e);
        }
      },
    });
  }

  return { role, effective, error, source, editable, dependencies, nameOf, origin, remove };
}
