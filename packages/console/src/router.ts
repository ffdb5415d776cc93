import { loadSession, session } from '@svc/console-shared';
import { createRouter, createWebHistory } from 'vue-router';
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
      meta: { public: true, title: 'Sign in' },
    },
    {
      path: '/console/setup',
      name: 'Setup',
      component: () => import('./pages/SetupPage.vue'),
      meta: { public: true, title: 'Set up svc' },
    },
    {
      path: '/console',
      name: 'Root',
      // A link to the root by name lands on its overview (a named parent alone would render no page).
      redirect: { name: 'Overview' },
      component: () => import('./components/ConsoleLayout.vue'),
      props: { root: 'Root', title: 'svc console' },
      children: consoleRoutes,
    },
    {
      path: '/uc',
      name: 'UcRoot',
      redirect: { name: 'UcOverview' },
      component: () => import('./components/ConsoleLayout.vue'),
      props: { root: 'UcRoot', title: 'Personal center' },
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

router.afterEach((to) => {
  document.title = to.meta.title ? `${to.meta.title} · svc` : 'svc';
});
