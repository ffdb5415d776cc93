import { loadSession, locale, session, translated } from '@svc/console-shared';
import { watch } from 'vue';
import { createRouter, createWebHistory, type Router } from 'vue-router';
import { consoleRoutes, ucRoutes } from './routes';

/**
 * One single-page app at two roots, as Halo's console and user center: `/console/` (route `Root`) and `/uc/` (route
 * `UcRoot`, every signed-in user's personal center). Plugin UIs add routes under either by name.
 */
export const router = createRouter({
  history: createWebHistory('/'),
  routes: [
    {
      path: '/console/login',
      name: 'SignIn',
      component: () => import('./pages/SignInPage.vue'),
      meta: { public: true, title: 'nav.signIn' },
    },
    {
      path: '/console/setup',
      name: 'Setup',
      component: () => import('./pages/SetupPage.vue'),
      meta: { public: true, title: 'nav.setup' },
    },
    {
      path: '/console',
      name: 'Root',
      // A link to the root by name lands on its overview (a named parent alone would render no page).
      redirect: { name: 'Overview' },
      component: () => import('./components/ConsoleLayout.vue'),
      props: { root: 'Root', title: 'nav.consoleTitle' },
      children: consoleRoutes,
    },
    {
      path: '/uc',
      name: 'UcRoot',
      redirect: { name: 'UcOverview' },
      component: () => import('./components/ConsoleLayout.vue'),
      props: { root: 'UcRoot', title: 'nav.personalCenter' },
      children: ucRoutes,
    },
    { path: '/:pathMatch(.*)*', redirect: '/console/' },
  ],
});

// Every page but the public ones needs a session; a route the user may not see renders the layout's "No permission".
router.beforeEach(async (to) => {
  if (!session.loaded) await loadSession();
  if (to.meta.public) return true;
  if (!session.user) {
    const back = to.fullPath === '/console' || to.fullPath === '/console/' ? {} : { redirect: to.fullPath };
    return { name: 'SignIn', query: back };
  }
  return true;
});

// The tab's title is the page's, in the language shown (again when the language changes).
function setTitle() {
  const title = router.currentRoute.value.meta.title;
  document.title = title ? `${translated(title)} · svc` : 'svc';
}
router.afterEach(setTitle);
watch(locale, setTitle);

/**
 * Starts loading the code of the pages `path` shows (the layout and the page of a console route), which the router
 * would fetch only once its guards have passed. A plugin's page is not known yet; its bundle is preloaded by index.html.
 */
export function warmRouteComponents(on: Router, path: string): void {
  for (const record of on.resolve(path).matched) {
    for (const component of Object.values(record.components ?? {})) {
      // A lazy page is a function of no arguments answering its module (vue-router's own test, in short).
      if (typeof component === 'function' && !('__vccOpts' in component) && !('props' in component)) {
        void (component as () => Promise<unknown>)().catch(() => undefined);
      }
    }
  }
}
