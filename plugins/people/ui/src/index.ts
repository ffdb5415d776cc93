import { definePlugin } from '@svc/console-shared';
import en from './i18n/en';

/**
 * The people plugin's console UI: the "Persons" page under the console, for holders of `plugin:people:view`, and
 * "My persons" in the personal center, for holders of `plugin:people:own`. The page
 * is a chunk of its own, loaded when first opened, so the console's first load fetches only this small entry (and not
 * the data table it uses).
 */
export default definePlugin({
  // The plugin's words: English in the entry (it is small), Chinese a chunk fetched only when chosen.
  messages: { en, 'zh-CN': () => import('./i18n/zh-CN') },
  routes: [
    {
      parentName: 'Root',
      route: {
        path: 'persons',
        name: 'PeoplePersons',
        component: () => import('./PersonsPage.vue'),
        // The first page of persons is asked for while the page's code loads, not after. Imported here, not from the
        // entry, so the entry (loaded at sign-in) stays one file.
        beforeEnter: () => {
          void import('./first-page').then((m) => m.prefetchFirstPage());
        },
        meta: {
          title: 'people.menu.persons',
          permissions: ['plugin:people:view'],
          menu: { name: 'people.menu.persons', group: 'people.menu.group', icon: 'pi pi-users', priority: 10 },
        },
      },
    },
  ],
  // The overview's widget, for the same holders as the Persons page.
  widgets: [
    {
      id: 'people-by-gender',
      title: 'people.menu.persons',
      component: () => import('./PersonsWidget.vue'),
      permissions: ['plugin:people:view'],
      priority: 30,
    },
  ],
  // The personal center's page: the persons that belong to the signed-in user.
  ucRoutes: [
    {
      parentName: 'UcRoot',
      route: {
        path: 'people/mine',
        name: 'PeopleMine',
        component: () => import('./MyPersonsPage.vue'),
        meta: {
          title: 'people.menu.mine',
          permissions: ['plugin:people:own'],
          menu: { name: 'people.menu.mine', icon: 'pi pi-user', priority: 30 },
        },
      },
    },
  ],
});
