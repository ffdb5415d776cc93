import { client, errorMessage, fieldErrors, t } from '@svc/console-shared';
import { DEPENDENCIES_ANNOTATION, DISPLAY_NAME_ANNOTATION, KIND, SERVICE_VERSION } from '@svc/plugin-api';
import { useToast } from 'primevue/usetoast';
import { computed, onMounted, reactive, ref } from 'vue';
import { useRouter } from 'vue-router';
import { displayNameOf, listAnnotation, loadRoles, ROLES, type RoleObject } from './roles';

/** Where svc names a problem with the role's templates in a refusal's `errors[]`. */
export const DEPENDENCIES_PATH = `/metadata/annotations/${DEPENDENCIES_ANNOTATION.replace(/\//g, '~1')}`;

/**
 * Making or editing a custom role (`name` undefined: a new one): a Role whose dependencies are the ticked templates and
 * which has no rules of its own (as Halo's console makes roles), so it follows the templates as their plugins change
 * them. svc's field errors are kept by JSON pointer for the form to show at each field.
 */
export function useRoleEditor(name: () => string | undefined) {
  const router = useRouter();
  const toast = useToast();

  const roles = ref<Map<string, RoleObject>>();
  const existing = ref<RoleObject>();
  const form = reactive({ name: '', displayName: '', templates: [] as string[] });
  const errors = ref<Record<string, string>>({});
  const error = ref('');
  const busy = ref(false);
  const creating = computed(() => name() === undefined);

  onMounted(async () => {
    try {
      roles.value = await loadRoles();
      const editing = name();
      if (editing !== undefined) {
        existing.value = roles.value.get(editing);
        if (!existing.value) throw new Error(t('roles.notFound', { name: editing }));
        form.name = editing;
        form.displayName = displayNameOf(existing.value, '');
        form.templates = listAnnotation(existing.value, DEPENDENCIES_ANNOTATION);
      }
    } catch (e) {
      error.value = e instanceof Error && !('status' in e) ? e.message : errorMessage(e);
    }
  });

  async function save() {
    busy.value = true;
    [errors.value, error.value] = [{}, ''];
    const annotations: Record<string, string> = {
      ...existing.value?.metadata.annotations,
      [DEPENDENCIES_ANNOTATION]: JSON.stringify(form.templates),
    };
    if (form.displayName) annotations[DISPLAY_NAME_ANNOTATION] = form.displayName;
    else delete annotations[DISPLAY_NAME_ANNOTATION];
    const role: RoleObject = existing.value
      ? { ...existing.value, metadata: { ...existing.value.metadata, annotations } }
      : { apiVersion: SERVICE_VERSION, kind: KIND.Role, metadata: { name: form.name, annotations }, rules: [] };
    try {
      const resource = client.resource<RoleObject>(ROLES);
      await (existing.value ? resource.update(role) : resource.create(role));
      toast.add({ severity: 'success', summary: t('roles.saved', { name: form.name }), life: 3000 });
      await router.push({ name: 'RoleDetail', params: { name: form.name } });
    } catch (e) {
      errors.value = fieldErrors(e, existing.value ? undefined : '/metadata/name');
      if (!errors.value['/metadata/name'] && !errors.value[DEPENDENCIES_PATH]) error.value = errorMessage(e);
    } finally {
      busy.value = false;
    }
  }

  return { roles, form, errors, error, busy, creating, save, back: () => router.back() };
}
