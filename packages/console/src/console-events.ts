import { CONSOLE_API, client, loadSession, session } from '@svc/console-shared';
import { watch } from 'vue';
import type { Router } from 'vue-router';
import type { PluginUiLoader } from './plugin-uis';

type ConsoleEvent =
  | { type: 'READY'; uiPermissions: string[] }
  | { type: 'PERMISSIONS'; uiPermissions: string[] }
  | { type: 'PLUGIN_UIS' }
  | { type: 'PING' };

/** After a stream fails (svc restarting, a network blip), the next try waits this long, doubling up to a minute. */
const FIRST_RETRY_MS = 1000;

/**
 * Follows `users/-/console-events` while someone is signed in: when their UI permissions change the session is read
 * again (menus, routes, HasPermission follow), and when plugin UIs start or stop the loader refreshes. After the
 * stream breaks, both are read again on reconnecting, so nothing missed meanwhile is lost. A 401 (the session ended)
 * reads the session, which signs the console out.
 */
export function followConsoleEvents(router: Router, uis: PluginUiLoader): void {
  let stream: ReturnType<typeof client.events<ConsoleEvent>> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const stop = () => {
    clearTimeout(retry);
    stream?.close();
    stream = undefined;
  };

  const start = (delay = FIRST_RETRY_MS, reconnect = false) => {
    stop();
    const mine = client.events<ConsoleEvent>(`${CONSOLE_API}/users/-/console-events`);
    stream = mine;
    void (async () => {
      try {
        for await (const event of mine) {
          if (event.type === 'READY') {
            delay = FIRST_RETRY_MS;
            const held = session.user?.uiPermissions.join(' ');
            if (reconnect || held !== event.uiPermissions.join(' ')) await loadSession();
            if (reconnect) await uis.refresh();
          } else if (event.type === 'PERMISSIONS') {
            await loadSession();
          } else if (event.type === 'PLUGIN_UIS') {
            await uis.refresh();
          }
        }
      } catch {
        // Read below: a 401 signs the console out; anything else is retried.
      }
      if (stream !== mine) return;
      stream = undefined;
      await loadSession().catch(() => undefined);
      if (!session.user) {
        await uis.clear();
        if (!router.currentRoute.value.meta.public) await router.push({ name: 'SignIn' });
        return;
      }
      retry = setTimeout(() => start(Math.min(delay * 2, 60_000), true), delay);
    })();
  };

  watch(
    () => session.user?.username,
    (username, before) => {
      if (username === before) return;
      stop();
      if (username) start();
      else void uis.clear();
    },
    { immediate: true },
  );
}
