import type { ExtensionObject } from '@svc/client';
import { CONSOLE_API, client } from '@svc/console-shared';
import { onMounted, ref } from 'vue';

export type OwnUser = ExtensionObject<{ displayName?: string; email?: string }, { lastLoginAt?: string }>;

/** The user's own User object (`users/-`), which every signed-in user may read; null if svc refused it. */
export function useOwnUser() {
  const user = ref<OwnUser | null>(null);
  onMounted(async () => {
    user.value = await client.request<OwnUser>('GET', `${CONSOLE_API}/users/-`).catch(() => null);
  });
  return user;
}
