import { createRouter, createWebHistory } from 'vue-router';
import { consoleRoutes } from './routes';
import { loadSession, session } from './session';

export const router = createRouter({
  history: createWebHistory(import.meta.env.BASE_URL),
  routes: [
    {
      path: '/login',
      name: 'SignIn',
      component: () => import('./pages/SignInPage.vue'),
      meta: { public: true, title: 'Sign in' },
    },
    { path: '/', component: () => import('./components/ConsoleLayout.vue'), children: consoleRoutes },
  ],
});

// Every page but sign-in needs a session; a route the user may not see renders the layout's "no permission" page.
router.beforeEach(async (to) => {
  if (!session.loaded) await loadSession();
  if (to.meta.public) return true;
  if (!session.user) return { name: 'SignIn', query: to.fullPath === '/' ? {} : { redirect: to.fullPath } };
  return true;
});

router.afterEach((to) => {
  document.title = to.meta.title ? `${to.meta.title} · svc console` : 'svc console';
});
