import { SvcApiError } from '@svc/client';
import { CONSOLE_API, client, errorMessage, fieldErrors } from '@svc/console-shared';
import { ref } from 'vue';

const FIELD_NAMES: Record<string, string> = { '/oldPassword': 'Current password', '/password': 'New password' };

/** svc's field message as a sentence about the field (`is required` → `Current password is required.`). */
function inWords(path: string, message: string): string {
  if (message === 'is not your current password') return 'This is not your current password.';
  return `${FIELD_NAMES[path]} ${message}.`;
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

  async function submit() {
    errors.value = {};
    error.value = '';
    changed.value = false;
    if (password.value !== confirmation.value) {
      errors.value = { '/confirmation': 'The new passwords do not match.' };
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

  return { oldPassword, password, confirmation, errors, error, changed, busy, submit };
}
