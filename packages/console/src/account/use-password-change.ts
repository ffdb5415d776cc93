import { SvcApiError } from '@svc/client';
import { CONSOLE_API, client, errorMessage, fieldErrors, t } from '@svc/console-shared';
import { onMounted, ref } from 'vue';

const FIELD_NAMES: Record<string, 'password.current' | 'password.new'> = {
  '/oldPassword': 'password.current',
  '/password': 'password.new',
};

/** svc's field message (English, as the API says it) after the field's name: `Current password is required.` */
function inWords(path: string, message: string): string {
  if (message === 'is not your current password') return t('password.notCurrent');
  return t('password.fieldError', { field: t(FIELD_NAMES[path] ?? path), message });
}

/**
 * Changing one's own password (`PUT …/users/-/password`): the new one typed twice, svc's refusals at their fields in
 * sentences, anything else (a throttle's 429) above the button.
 */
export function usePasswordChange() {
  const oldPassword = ref('');
  const password = ref('');
  const confirmation = ref('');
  const errors = ref<Record<string, string>>({});
  const error = ref('');
  const changed = ref(false);
  const busy = ref(false);
  /** The username an identity provider's user signs in as: svc keeps no password for them, so there is no form. */
  const external = ref('');

  onMounted(async () => {
    const own = await client
      .request<{ spec?: { identity?: { username: string } } }>('GET', `${CONSOLE_API}/users/-`)
      .catch(() => undefined);
    external.value = own?.spec?.identity?.username ?? '';
  });

  async function submit() {
    errors.value = {};
    error.value = '';
    changed.value = false;
    if (password.value !== confirmation.value) {
      errors.value = { '/confirmation': t('password.mismatch') };
      return;
    }
    busy.value = true;
    try {
      await client.request('PUT', `${CONSOLE_API}/users/-/password`, {
        body: { oldPassword: oldPassword.value, password: password.value },
      });
      oldPassword.value = password.value = confirmation.value = '';
      changed.value = true;
    } catch (e) {
      const byField = fieldErrors(e);
      errors.value = Object.fromEntries(
        Object.entries(byField)
          .filter(([path]) => FIELD_NAMES[path])
          .map(([path, message]) => [path, inWords(path, message)]),
      );
      if (Object.keys(errors.value).length === 0 || !(e instanceof SvcApiError)) error.value = errorMessage(e);
    } finally {
      busy.value = false;
    }
  }

  return { oldPassword, password, confirmation, errors, error, changed, busy, submit, external };
}
