import { client, errorMessage, hasPermission } from '@svc/console-shared';
import { useConfirm } from 'primevue/useconfirm';
import { useToast } from 'primevue/usetoast';
import { computed, onMounted, ref } from 'vue';
import { type ListedUser, listUsers, USERS } from './users';

export const USERS_PAGE_SIZE = 20;

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

  async function act(what: string, action: () => Promise<unknown>) {
    error.value = '';
    try {
      await action();
      toast.add({ severity: 'success', summary: what, life: 3000 });
    } catch (e) {
      error.value = `${what} failed: ${errorMessage(e)}`;
    }
    await load();
  }

  const users = client.resource(USERS);
  const setDisabled = (row: ListedUser, disabled: boolean) =>
    act(`${disabled ? 'Disabling' : 'Enabling'} ${row.user.metadata.name}`, () =>
      users.patch(row.user.metadata.name, { spec: { disabled } }),
    );

  function remove(row: ListedUser) {
    const name = row.user.metadata.name;
    confirm.require({
      header: `Delete ${name}?`,
      message: `User ${name} will be deleted with their role bindings, sessions and tokens. This cannot be undone.`,
      acceptProps: { label: 'Delete', severity: 'danger' },
      rejectProps: { label: 'Cancel', severity: 'secondary' },
      accept: () => act(`Deleting ${name}`, () => users.delete(name)),
    });
  }

  return { mayManage, keyword, searched, page, items, total, loading, error, search, goTo, act, setDisabled, remove };
}
