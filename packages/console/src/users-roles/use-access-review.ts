import { CONSOLE_API, client, errorMessage, fieldErrors } from '@svc/console-shared';
import type { AccessReview } from '@svc/plugin-api';
import { reactive, ref } from 'vue';
import { ROLES, type RoleObject, ruleText } from './roles';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * "May this user send this request, and which role and rule say so": svc's gate answers (`POST accessreviews`), and
 * the deciding role is read to show the rule in words.
 */
export function useAccessReview() {
  const form = reactive({ user: '', method: 'GET', path: '' });
  const review = ref<AccessReview>();
  const deciding = ref<{ role: RoleObject; rule: string }>();
  const errors = ref<Record<string, string>>({});
  const error = ref('');
  const busy = ref(false);

  async function check() {
    busy.value = true;
    [errors.value, error.value, review.value, deciding.value] = [{}, '', undefined, undefined];
    try {
      const body: Record<string, string> = { method: form.method, path: form.path };
      if (form.user.trim()) body.user = form.user.trim();
      review.value = await client.request<AccessReview>('POST', `${CONSOLE_API}/accessreviews`, { body });
      const { role, rule } = review.value;
      if (role !== undefined) {
        const object = await client.resource<RoleObject>(ROLES).get(role);
        const decided = rule === undefined ? undefined : object.rules?.[rule];
        deciding.value = { role: object, rule: decided ? ruleText(decided) : '' };
      }
    } catch (e) {
      errors.value = fieldErrors(e);
      error.value = errorMessage(e);
    } finally {
      busy.value = false;
    }
  }

  return { form, review, deciding, error, busy, check };
}
