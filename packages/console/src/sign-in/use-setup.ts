import { SvcApiError } from '@svc/client';
import { errorMessage, fieldErrors, loadSession, t } from '@svc/console-shared';
import { onMounted, ref } from 'vue';
import { useRoute, useRouter } from 'vue-router';
import { completeSetup, setupPending } from './setup';

/**
 * The first-run setup page's work: the token from the printed link's fragment (taken off the address bar at once),
 * whether setup is pending, and creating the super administrator, which signs the browser in.
 */
export function useSetup() {
  const route = useRoute();
  const router = useRouter();
  /** `checking` until svc answers; `pending` shows the form; `done` when an administrator exists. */
  const state = ref<'checking' | 'pending' | 'done' | 'unreachable'>('checking');
  const token = ref('');
  const username = ref('admin');
  const password = ref('');
  const confirmation = ref('');
  const errors = ref<Record<string, string>>({});
  const error = ref('');
  const busy = ref(false);

  onMounted(async () => {
    // The link carries the token in its fragment (never sent to svc). Keep it in memory and take it off the address
    // bar, so it is not bookmarked, shared or kept in history.
    token.value = new URLSearchParams(route.hash.replace(/^#/, '')).get('token') ?? '';
    if (route.hash) await router.replace({ hash: '' });
    try {
      state.value = (await setupPending()) ? 'pending' : 'done';
    } catch (e) {
      error.value = errorMessage(e);
      state.value = 'unreachable';
    }
  });

  async function submit() {
    errors.value = {};
    error.value = '';
    if (password.value !== confirmation.value) {
      errors.value = { '/confirmation': t('setup.mismatch') };
      return;
    }
    busy.value = true;
    try {
      await completeSetup(token.value, username.value, password.value);
      await loadSession();
      await router.push('/console/');
    } catch (e) {
      if (e instanceof SvcApiError && e.status === 409) {
        state.value = 'done';
      } else {
        errors.value = fieldErrors(e);
        // A wrong or expired link (403) and anything not about a field are said above the button.
        if (!errors.value['/username'] && !errors.value['/password']) error.value = linkProblem(e);
      }
    } finally {
      busy.value = false;
    }
  }

  function linkProblem(e: unknown): string {
    if (e instanceof SvcApiError && (e.status === 403 || fieldErrors(e)['/token'])) {
      const why = e.status === 403 ? e.detail : t('setup.noLink');
      return t('setup.openLink', { why });
    }
    return errorMessage(e);
  }

  return { state, username, password, confirmation, errors, error, busy, submit };
}
