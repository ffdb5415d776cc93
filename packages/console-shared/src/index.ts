/**
 * `@svc/console-shared`: the console's singletons and helpers that plugin UIs share with it. The console gives plugin
 * bundles this module (and Vue, vue-router, PrimeVue) through its import map, so a bundle holds only its own code and
 * uses the console's one client and session.
 */

export { allows } from './allows.js';
export { CONSOLE_API, client, errorMessage, fieldErrors } from './client.js';
export {
  addMessages,
  i18n,
  initialLocale,
  LOCALE_NAMES,
  LOCALES,
  type Locale,
  locale,
  type Messages,
  type MessagesSource,
  preferredLocale,
  setLocale,
  t,
  translated,
  useI18n,
} from './i18n.js';
export { type LiveListOptions, type LiveState, useLiveList } from './live-list.js';
export { hasPermission } from './permissions.js';
export { type DashboardWidget, definePlugin, type MenuEntry, type PluginModule, type PluginRoute } from './plugin.js';
export { loadSession, type SignedInUser, session, signIn, signOut } from './session.js';
