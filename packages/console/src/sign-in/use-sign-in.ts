import { SvcApiError } from '@svc/client';
import { signIn, t } from '@svc/console-shared';
import { computed, onMounted, ref } from 'vue';
import { useRoute, useRouter } from 'vue-router';
import { type SignInOptions, signInOptions } from './setup';

/**
 * Signing in: the throttle said in svc's words, and the visitor taken back where they were going (only to a page of
 * this app). Says when svc has no user yet, so nobody can sign in until the printed setup link is opened.
 */
export function useSignIn() {
  const route = useRoute();
  const router = useRouter();
  const username = ref('');
  const password = ref('');
  const error = ref('');
  const busy = ref(false);
  /** svc has no user yet: nobody can sign in until the printed setup link is opened. */
  const pending = ref(false);
  /** The ways of signing in svc offers; a password until it says otherwise. */
  const options = ref<SignInOptions>({ pending: false, localSignIn: true });
  /** Why a sign-in with the provider failed: svc sends the browser back here with its reason. */
  const providerError = typeof route.query.oidcError === 'string' ? route.query.oidcError : '';

  onMounted(async () => {
    options.value = await signInOptions().catch(() => options.value);
    pending.value = options.value.pending;
  });

  /** svc's route that sends the browser to the provider, and back to where the visitor was going. */
  const providerHref = computed(() => `/login/oidc?redirect=${encodeURIComponent(destination())}`);

  /** What to tell a person whose sign-in failed: svc's own words for a throttle (429), a plain sentence otherwise. */
  function messageOf(e: unknown): string {
    if (e instanceof SvcApiError) {
      if (e.status === 429) return e.detail || t('signIn.tooMany');
      if (e.status === 401 || e.status === 400) return t('signIn.wrong');
      return e.detail || e.title;
    }
    return t('common.cannotReach', { reason: (e as Error).message });
  }

  /** Back where the visitor was going, if that is a page of this app; else the console's overview. */
  function destination(): string {
    const redirect = route.query.redirect;
    return typeof redirect === 'string' && /^\/(console|uc)(\/|$)/.test(redirect) ? redirect : '/console/';
  }

  async function submit() {
    busy.value = true;
    error.value = '';
    try {
      await signIn(username.value, password.value);
      await router.push(destination());
    } catch (e) {
      error.value = messageOf(e);
    } finally {
      busy.value = false;
    }
  }

  return { username, password, error, busy, pending, options, providerError, providerHref, submit };
}
