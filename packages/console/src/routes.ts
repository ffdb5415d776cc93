import type { RouteRecordRaw } from 'vue-router';
import { prefetchModelPage } from './resources/prefetch';

/**
 * The console's pages (children of `Root`, at `/console/…`). Every route carries `meta.permissions` (UI permissions,
 * all needed; none: every signed-in user); those with `meta.menu` make the side menu, shown only when allowed.
 */
export const consoleRoutes: RouteRecordRaw[] = [
  { path: '', name: 'Overview', component: () => import('./pages/OverviewPage.vue'), meta: { title: 'Overview' } },
  {
    path: 'users',
    name: 'Users',
    component: () => import('./pages/UsersPage.vue'),
    meta: {
      title: 'Users',
      permissions: ['system:users:view'],
      menu: { name: 'Users', icon: 'pi pi-users', group: 'System', priority: 100 },
    },
  },
  {
    path: 'posts',
    name: 'Posts',
    component: () => import('./pages/posts/PostsPage.vue'),
    meta: {
      title: 'Posts',
      permissions: ['system:posts:manage'],
      menu: { name: 'Posts', icon: 'pi pi-file-edit', group: 'Content', priority: 20 },
    },
  },
  // The resource browser: every model the server says the user may list (UI permission system:resources:view).
  {
    path: 'resources',
    name: 'Resources',
    component: () => import('./pages/resources/ResourcesPage.vue'),
    meta: {
      title: 'Resources',
      permissions: ['system:resources:view'],
      menu: { name: 'Resources', icon: 'pi pi-database', group: 'System', priority: 200 },
    },
  },
  {
    path: 'resources/:group/:version/:plural',
    name: 'ResourceList',
    component: () => import('./pages/resources/ResourceListPage.vue'),
    beforeEnter: (to) => void prefetchModelPage(to),
    meta: { title: 'Resources', permissions: ['system:resources:view'] },
  },
  {
    path: 'resources/:group/:version/:plural/-/new',
    name: 'ResourceCreate',
    component: () => import('./pages/resources/ResourceObjectPage.vue'),
    meta: { title: 'Create', permissions: ['system:resources:view'] },
  },
  {
    path: 'resources/:group/:version/:plural/:name',
    name: 'ResourceObject',
    component: () => import('./pages/resources/ResourceObjectPage.vue'),
    meta: { title: 'Object', permissions: ['system:resources:view'] },
  },
  {
    path: 'roles',
    name: 'Roles',
    component: () => import('./pages/RolesPage.vue'),
    meta: {
      title: 'Roles',
      permissions: ['system:roles:view'],
      menu: { name: 'Roles', icon: 'pi pi-shield', group: 'System', priority: 110 },
    },
  },
  {
    path: 'roles/new',
    name: 'RoleCreate',
    component: () => import('./pages/RoleEditPage.vue'),
    meta: { title: 'New role', permissions: ['system:roles:manage'] },
  },
  {
    path: 'roles/:name',
    name: 'RoleDetail',
    component: () => import('./pages/RolePage.vue'),
    props: true,
    meta: { title: 'Role', permissions: ['system:roles:view'] },
  },
  {
    path: 'roles/:name/edit',
    name: 'RoleEdit',
    component: () => import('./pages/RoleEditPage.vue'),
    props: true,
    meta: { title: 'Edit role', permissions: ['system:roles:manage'] },
  },
  {
    path: 'access-review',
    name: 'AccessReview',
    component: () => import('./pages/AccessReviewPage.vue'),
    // Asking svc for a review is in the roles management template.
    meta: {
      title: 'Access review',
      permissions: ['system:roles:manage'],
      menu: { name: 'Access review', icon: 'pi pi-search', group: 'System', priority: 120 },
    },
  },
  {
    path: 'plugins',
    name: 'Plugins',
    component: () => import('./pages/PluginsPage.vue'),
    meta: {
      title: 'Plugins',
      permissions: ['system:plugins:view'],
      menu: { name: 'Plugins', icon: 'pi pi-box', group: 'System', priority: 130 },
    },
  },
  {
    path: 'plugins/:name',
    name: 'PluginDetail',
    component: () => import('./pages/PluginDetailPage.vue'),
    props: true,
    meta: { title: 'Plugin', permissions: ['system:plugins:view'] },
  },
  {
    path: ':unknown(.*)*',
    name: 'NotFound',
    component: () => import('./pages/NotFoundPage.vue'),
    meta: { title: 'Not found' },
  },
];

/**
 * The personal center's pages (children of `UcRoot`, at `/uc/…`), for every signed-in user: their menu is built from
 * these routes as the console's is, so a plugin's `ucRoutes` with `meta.menu` join it.
 */
export const ucRoutes: RouteRecordRaw[] = [
  {
    path: '',
    name: 'UcOverview',
    component: () => import('./pages/UcOverviewPage.vue'),
    meta: { title: 'Personal center', permissions: [] },
  },
  {
    path: 'profile',
    name: 'Profile',
    component: () => import('./pages/uc/ProfilePage.vue'),
    meta: { title: 'Profile', permissions: [], menu: { name: 'Profile', icon: 'pi pi-id-card', priority: 1 } },
  },
  {
    path: 'password',
    name: 'Password',
    component: () => import('./pages/uc/PasswordPage.vue'),
    meta: { title: 'Password', permissions: [], menu: { name: 'Password', icon: 'pi pi-key', priority: 2 } },
  },
  {
    path: 'tokens',
    name: 'PersonalAccessTokens',
    component: () => import('./pages/uc/TokensPage.vue'),
    meta: {
      title: 'Access tokens',
      permissions: [],
      menu: { name: 'Access tokens', icon: 'pi pi-ticket', priority: 3 },
    },
  },
  {
    path: 'posts',
    name: 'UcPosts',
    component: () => import('./pages/posts/MyPostsPage.vue'),
    meta: {
      title: 'My posts',
      permissions: ['uc:posts:own'],
      menu: { name: 'My posts', icon: 'pi pi-pencil', priority: 20 },
    },
  },
  {
    path: ':unknown(.*)*',
    name: 'UcNotFound',
    component: () => import('./pages/NotFoundPage.vue'),
    meta: { title: 'Not found' },
  },
];
