import { SvcApiError, SvcClient } from '@svc/client';
import { fetchOrTakeEarly } from './early-requests.js';
import { t } from './i18n.js';

/** The console's own API group version, for plugin UIs (which import this module only). */
export { CONSOLE_API } from '@svc/plugin-api';

/**
 * The one client of the console and of every plugin UI: same origin, the browser's session cookie, and the
 * `X-XSRF-TOKEN` header on writes.
 */
export const client = new SvcClient({
  baseUrl: window.location.origin,
  documentCookies: () => document.cookie,
  // The session and the plugin UIs, asked for by index.html before the console's code loaded.
  fetch: fetchOrTakeEarly,
});

/**
 * What a person reads when a call failed: svc's own words (problem+json detail, English as the API gives them), or
 * why svc could not be reached (in the language shown).
 */
export function errorMessage(error: unknown): string {
  if (error instanceof SvcApiError) return error.detail || error.title;
  return t('common.cannotReach', { reason: (error as Error)?.message ?? String(error) });
}

/**
 * A failed write's field errors by JSON pointer (`/spec/name` → its message), so a form shows each at its field.
 * Several errors at one path are joined. A create refused because the name is taken (409) names no field; with
 * `nameAt` (the form's name field, `/metadata/name`) its message is put there.
 */
export function fieldErrors(error: unknown, nameAt?: string): Record<string, string> {
  const byPath: Record<string, string> = {};
  if (!(error instanceof SvcApiError)) return byPath;
  if (nameAt && error.status === 409 && error.errors.length === 0) return { [nameAt]: error.detail || error.title };
  for (const { path, message } of error.errors) {
    const key = path || '/';
    byPath[key] = byPath[key] ? `${byPath[key]}; ${message}` : message;
  }
  return byPath;
}
