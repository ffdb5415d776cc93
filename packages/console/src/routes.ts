import type { RouteRecordRaw } from 'vue-router';

declare module 'vue-router' {
  interface RouteMeta {
    /** UI permissions a user must all hold to see this route (and its menu entry); none: every signed-in user. */
    permissions?: string[];
    /** An entry in the side menu, in this label. */
    menu?: { name: string };
    /** Reachable without signing in. */
    public?: boolean;
    title?: string;
  }
}

/** The pages inside the layout; the menu is built from those with `meta.menu`. */
export const consoleRoutes: RouteRecordRaw[] = [
  { path: '', name: 'Overview', component: () => import('./pages/OverviewPage.vue'), meta: { title: 'Overview' } },
  {
    path: 'people',
    name: 'People',
    component: () => import('./pages/PeoplePage.vue'),
    meta: { title: 'People', permissions: ['plugin:people:view'], menu: { name: 'People' } },
  },
  {
    path: 'users',
    name: 'Users',
    component: () => import('./pages/UsersPage.vue'),
    meta: { title: 'Users', permissions: ['system:users:view'], menu: { name: 'Users' } },
  },
  { path: 'profile', name: 'Profile', component: () => import('./pages/ProfilePage.vue'), meta: { title: 'Profile' } },
  {
    path: ':unknown(.*)*',
    name: 'NotFound',
    component: () => import('./pages/NotFoundPage.vue'),
    meta: { title: 'Not found' },
  },
];
