import { SvcClient } from '@svc/client';

/** The one client of the console: same origin, the browser's session cookie, the XSRF header on writes. */
export const client = new SvcClient({
  baseUrl: window.location.origin,
  documentCookies: () => document.cookie,
});

export const CONSOLE_API = '/apis/api.console.svc.run/v1alpha1';

/** What `users/-/permissions` answers about the signed-in user. */
export interface SignedInUser {
  username: string;
  roles: string[];
  permissions: string[];
  uiPermissions: string[];
}
