import { client, errorMessage, hasPermission, t } from '@svc/console-shared';
import { useConfirm } from 'primevue/useconfirm';
import { useToast } from 'primevue/usetoast';
import { computed, onMounted, ref } from 'vue';
import { type ListedUser, listUsers, USERS } from './users';

export const USERS_PAGE_SIZE = 20;

/** An action's outcome messages (`users.created.done`, `users.created.failed`, …). */
type Outcome = 'users.created' | 'users.rolesSet' | 'users.disabledOne' | 'users.enabledOne' | 'users.deleted';

/**
 * The Users page's list, searched and paged by svc, and what a manager does to a row: each action's outcome said in a
 * toast, its failure in svc's words above the table (a 403 says why: the user holds more than you), the page read again.
 */
export function useUserList() {
  const toast = useToast();
  const confirm = useConfirm();
  const mayManage = computed(() => hasPermission(['system:users:manage']));

  const keyword = ref('');
  const searched = ref('');
  const page = ref(1);
  const items = ref<ListedUser[]>([]);
  const total = ref(0);
  const loading = ref(false);
  const error = ref('');

  async function load() {
    loading.value = true;
    try {
      const answer = await listUsers(searched.value, page.value, USERS_PAGE_SIZE);
      [items.value, total.value] = [answer.items, answer.total];
    } catch (e) {
      error.value = errorMessage(e);
    } finally {
      loading.value = false;
    }
  }
  onMounted(load);

  function search() {
    [searched.value, page.value, error.value] = [keyword.value.trim(), 1, ''];
    void load();
  }

  function goTo(pageNumber: number) {
    page.value = pageNumber;
    void load();
  }

  /** `outcome` names messages `<outcome>.done` and `<outcome>.failed` (en.ts `users.*`), about user `name`. */
  async function act(outcome: Outcome, name: string, action: () => Promise<unknown>) {
    error.value = '';
    try {
      await action();
      toast.add({ severity: 'success', summary: t(`${outcome}.done`, { name }), life: 3000 });
    } catch (e) {
      error.value = t(`${outcome}.failed`, { name, reason: errorMessage(e) });
    }
    await load();
  }

  const users = client.resource(USERS);
  const setDisabled = (row: ListedUser, disabled: boolean) =>
    act(disabled ? 'users.disabledOne' : 'users.enabledOne', row.user.metadata.name, () =>
      users.patch(row.user.metadata.name, { spec: { disabled } }),
    );

  function remove(row: ListedUser) {
    const name = row.user.metadata.name;
    confirm.require({
      header: t('users.deleteHeader', { name }),
      message: t('users.deleteMessage', { name }),
      acceptProps: { label: t('common.delete'), severity: 'danger' },
      rejectProps: { label: t('common.cancel'), severity: 'secondary' },
      accept: () => act('users.deleted', name, () => users.delete(name)),
    });
  }

  return { mayManage, keyword, searched, page, items, total, loading, error, search, goTo, act, setDisabled, remove };
}
