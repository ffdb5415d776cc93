import { httpRef } from '../api/module.js';
import { defineModule, ref } from '../kernel/module.js';
import { settingsRef } from '../kernel/root.js';
import { mountConsole } from './console-routes.js';

export const consoleRef = ref<void>('console');

/**
 * The web console's built files, public, and the redirect of a browser asking for `/`. In the open phase: its
 * redirect must run before the authorization gate, which the access module adds.
 */
export const consoleModule = defineModule({
  name: 'console',
  phase: 'open',
  needs: { http: httpRef, settings: settingsRef },
  provides: consoleRef,
  start: ({ http, settings }) => mountConsole(http.app, http.router, undefined, settings.pluginDevOrigins ?? []),
});
