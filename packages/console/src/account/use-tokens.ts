import type { ExtensionObject, ListResult } from '@svc/client';
import { client, errorMessage, fieldErrors, session, t } from '@svc/console-shared';
import { ACCESS_TOKEN_ANNOTATION, apisPath, USER_SECURITY_GROUP } from '@svc/plugin-api';
import { useConfirm } from 'primevue/useconfirm';
import { useToast } from 'primevue/usetoast';
import { computed, onMounted, ref } from 'vue';

interface TokenSpec {
  name: string;
  roles: string[];
  expiresAt?: string;
  revoked?: boolean;
  revokedAt?: string;
}
/** A PersonalAccessToken as svc answers it: always with its spec. */
export type Token = ExtensionObject<TokenSpec, { lastUsedAt?: string }> & { spec: TokenSpec };

/** The signed-in user's own tokens (docs/api.md "Security"). */
const TOKENS = `${apisPath(USER_SECURITY_GROUP)}/personalaccesstokens`;
const DAY_MS = 24 * 3600_000;
/** The expiries offered, each with its words (read when shown, so they follow the language). */
export const EXPIRIES = () => [
  { label: t('tokens.expiry.week'), days: 7 },
  { label: t('tokens.expiry.month'), days: 30 },
  { label: t('tokens.expiry.quarter'), days: 90 },
  { label: t('tokens.expiry.year'), days: 365 },
  { label: t('tokens.expiry.never'), days: 0 },
];

/** A token's state in words, with the tag's severity. */
export function stateOf(token: Token): { label: string; severity: 'success' | 'danger' | 'secondary' } {
  if (token.spec.revoked) return { label: t('tokens.state.revoked'), severity: 'danger' };
  if (token.spec.expiresAt && Date.parse(token.spec.expiresAt) <= Date.now())
    return { label: t('tokens.state.expired'), severity: 'secondary' };
  return { label: t('tokens.state.active'), severity: 'success' };
}

/**
 * The personal center's access tokens: the user's own, listed; a new one made with a name, an expiry and some of the
 * user's own roles, its value shown once; revoked or deleted after a confirmation.
 */
export function useTokens() {
  const confirm = useConfirm();
  const toast = useToast();
  const tokens = ref<Token[]>([]);
  const loadError = ref('');
  const name = ref('');
  const expiryDays = ref(30);
  const roles = ref<string[]>([]);
  const errors = ref<Record<string, string>>({});
  const error = ref('');
  const busy = ref(false);
  /** The token just made: its value is in this answer only, so it is shown until dismissed, never again. */
  const created = ref<{ name: string; value: string } | null>(null);
  const ownRoles = computed(() => session.user?.roles ?? []);

  async function load() {
    try {
      tokens.value = (await client.request<ListResult<Token>>('GET', TOKENS)).items;
      loadError.value = '';
    } catch (e) {
      loadError.value = errorMessage(e);
    }
  }
  onMounted(load);

  async function create() {
    errors.value = {};
    error.value = '';
    // A token acts with the roles ticked only: one with none could do no more than any signed-in user, which is
    // rarely what its maker meant (and its 403s would puzzle them).
    if (ownRoles.value.length > 0 && roles.value.length === 0) {
      errors.value = { '/spec/roles': t('editing.pickRole') };
      return;
    }
    busy.value = true;
    try {
      const expiresAt =
        expiryDays.value > 0 ? new Date(Date.now() + expiryDays.value * DAY_MS).toISOString() : undefined;
      const made = await client.request<Token>('POST', TOKENS, {
        body: { spec: { name: name.value, roles: roles.value, expiresAt } },
      });
      created.value = { name: made.spec.name, value: made.metadata.annotations?.[ACCESS_TOKEN_ANNOTATION] ?? '' };
      name.value = '';
      roles.value = [];
      await load();
    } catch (e) {
      errors.value = fieldErrors(e);
      if (!errors.value['/spec/name']) error.value = errorMessage(e);
    } finally {
      busy.value = false;
    }
  }

  /** Copies the new token; where the browser refuses, selects it (the input `#new-token`) for the user to copy. */
  async function copy() {
    if (!created.value) return;
    try {
      await navigator.clipboard.writeText(created.value.value);
      toast.add({ severity: 'success', summary: t('tokens.copied'), life: 3000 });
    } catch {
      (document.getElementById('new-token') as HTMLInputElement | null)?.select();
      toast.add({
        severity: 'warn',
        summary: t('tokens.copyYourself'),
        detail: t('tokens.selected'),
        life: 5000,
      });
    }
  }

  function act(token: Token, action: 'revoke' | 'delete') {
    const revoke = action === 'revoke';
    confirm.require({
      header: t(revoke ? 'tokens.revokeHeader' : 'tokens.deleteHeader', { name: token.spec.name }),
      message: t(revoke ? 'tokens.revokeMessage' : 'tokens.deleteMessage'),
      // Aura's danger red under white text fails WCAG AA contrast: the primary colour instead.
      acceptProps: { label: revoke ? t('tokens.revoke') : t('common.delete') },
      rejectProps: { label: t('common.cancel'), severity: 'secondary' },
      accept: async () => {
        try {
          const path = `${TOKENS}/${encodeURIComponent(token.metadata.name)}`;
          await client.request(revoke ? 'PUT' : 'DELETE', revoke ? `${path}/revocation` : path);
          toast.add({ severity: 'success', summary: revoke ? t('tokens.revoked') : t('tokens.deleted'), life: 3000 });
        } catch (e) {
          toast.add({ severity: 'error', summary: errorMessage(e), life: 6000 });
        }
        await load();
      },
    });
  }

  const dismiss = () => {
    created.value = null;
  };

  return {
    tokens,
    loadError,
    name,
    expiryDays,
    roles,
    errors,
    error,
    busy,
    created,
    ownRoles,
    create,
    copy,
    dismiss,
    act,
  };
}
