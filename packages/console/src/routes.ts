import type { RouteRecordRaw } from 'vue-router';
import { prefetchModelPage } from './resources/prefetch';

/**
 * The console's pages (children of `Root`, at `/console/…`). Every route carries `meta.permissions` (UI permissions,
 * all needed; none: every signed-in user); those with `meta.menu` make the side menu, shown only when allowed.
 */
export const consoleRoutes: RouteRecordRaw[] = [
  { path: '', name: 'Overview', component: () => import('./pages/OverviewPage.vue'), meta: { title: 'nav.overview' } },
  {
    path: 'users',
    name: 'Users',
    component: () => import('./pages/UsersPage.vue'),
    meta: {
      title: 'nav.users',
      permissions: ['system:users:view'],
      menu: { name: 'nav.users', icon: 'pi pi-users', group: 'nav.system', priority: 100 },
    },
  },
  {
    path: 'posts',
    name: 'Posts',
    component: () => import('./pages/posts/PostsPage.vue'),
    meta: {
      title: 'nav.posts',
      permissions: ['system:posts:manage'],
      menu: { name: 'nav.posts', icon: 'pi pi-file-edit', group: 'nav.content', priority: 20 },
    },
  },
  // The resource browser: every model the server says the user may list (UI permission system:resources:view).
  {
    path: 'resources',
    name: 'Resources',
    component: () => import('./pages/resources/ResourcesPage.vue'),
    meta: {
      title: 'nav.resources',
      permissions: ['system:resources:view'],
      menu: { name: 'nav.resources', icon: 'pi pi-database', group: 'nav.system', priority: 200 },
    },
  },
  {
    path: 'resources/:group/:version/:plural',
    name: 'ResourceList',
    component: () => import('./pages/resources/ResourceListPage.vue'),
    beforeEnter: (to) => void prefetchModelPage(to),
    meta: { title: 'nav.resources', permissions: ['system:resources:view'] },
  },
  {
    path: 'resources/:group/:version/:plural/-/new',
    name: 'ResourceCreate',
    component: () => import('./pages/resources/ResourceObjectPage.vue'),
    meta: { title: 'nav.create', permissions: ['system:resources:view'] },
  },
  {
    path: 'resources/:group/:version/:plural/:name',
    name: 'ResourceObject',
    component: () => import('./pages/resources/ResourceObjectPage.vue'),
    meta: { title: 'nav.object', permissions: ['system:resources:view'] },
  },
  {
    path: 'roles',
    name: 'Roles',
    component: () => import('./pages/RolesPage.vue'),
    meta: {
      title: 'nav.roles',
      permissions: ['system:roles:view'],
      menu: { name: 'nav.roles', icon: 'pi pi-shield', group: 'nav.system', priority: 110 },
    },
  },
  {
    path: 'roles/new',
    name: 'RoleCreate',
    component: () => import('./pages/RoleEditPage.vue'),
    meta: { title: 'nav.newRole', permissions: ['system:roles:manage'] },
  },
  {
    path: 'roles/:name',
    name: 'RoleDetail',
    component: () => import('./pages/RolePage.vue'),
    props: true,
    meta: { title: 'nav.role', permissions: ['system:roles:view'] },
  },
  {
    path: 'roles/:name/edit',
    name: 'RoleEdit',
    component: () => import('./pages/RoleEditPage.vue'),
    props: true,
    meta: { title: 'nav.editRole', permissions: ['system:roles:manage'] },
  },
  {
    path: 'access-review',
    name: 'AccessReview',
    component: () => import('./pages/AccessReviewPage.vue'),
    // Asking svc for a review is in the roles management template.
    meta: {
      title: 'nav.accessReview',
      permissions: ['system:roles:manage'],
      menu: { name: 'nav.accessReview', icon: 'pi pi-search', group: 'nav.system', priority: 120 },
    },
  },
  {
    path: 'audit',
    name: 'Audit',
    component: () => import('./pages/AuditPage.vue'),
    meta: {
      title: 'audit.title',
      permissions: ['system:audit:view'],
      menu: { name: 'audit.menu', icon: 'pi pi-history', group: 'nav.system', priority: 140 },
    },
  },
  {
    path: 'plugins',
    name: 'Plugins',
    component: () => import('./pages/PluginsPage.vue'),
    meta: {
      title: 'nav.plugins',
      permissions: ['system:plugins:view'],
      menu: { name: 'nav.plugins', icon: 'pi pi-box', group: 'nav.system', priority: 130 },
    },
  },
  {
    path: 'plugins/:name',
    name: 'PluginDetail',
    component: () => import('./pages/PluginDetailPage.vue'),
    props: true,
    meta: { title: 'nav.plugin', permissions: ['system:plugins:view'] },
  },
  {
    path: ':unknown(.*)*',
    name: 'NotFound',
    component: () => import('./pages/NotFoundPage.vue'),
    meta: { title: 'nav.notFound' },
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
    meta: { title: 'nav.personalCenter', permissions: [] },
  },
  {
    path: 'profile',
    name: 'Profile',
    component: () => import('./pages/uc/ProfilePage.vue'),
    meta: { title: 'nav.profile', permissions: [], menu: { name: 'nav.profile', icon: 'pi pi-id-card', priority: 1 } },
  },
  {
    path: 'password',
    name: 'Password',
    component: () => import('./pages/uc/PasswordPage.vue'),
    meta: { title: 'nav.password', permissions: [], menu: { name: 'nav.password', icon: 'pi pi-key', priority: 2 } },
  },
  {
    path: 'tokens',
    name: 'PersonalAccessTokens',
    component: () => import('./pages/uc/TokensPage.vue'),
    meta: {
      title: 'nav.accessTokens',
      permissions: [],
      menu: { name: 'nav.accessTokens', icon: 'pi pi-ticket', priority: 3 },
    },
  },
  {
    path: 'posts',
    name: 'UcPosts',
    component: () => import('./pages/posts/MyPostsPage.vue'),
    meta: {
      title: 'nav.myPosts',
      permissions: ['uc:posts:own'],
      menu: { name: 'nav.myPosts', icon: 'pi pi-pencil', priority: 20 },
    },
  },
  {
    path: ':unknown(.*)*',
    name: 'UcNotFound',
    component: () => import('./pages/NotFoundPage.vue'),
    meta: { title: 'nav.notFound' },
  },
];
