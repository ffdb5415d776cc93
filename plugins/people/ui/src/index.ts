import { definePlugin } from '@svc/console-shared';

/**
 * The people plugin's console UI: the "Persons" page under the console, for holders of `plugin:people:view`. The page
 * is a chunk of its own, loaded when first opened, so the console's first load fetches only this small entry (and not
 * the data table it uses).
 */
export default definePlugin({
  routes: [
    {
      parentName: 'Root',
      route: {
        path: 'persons',
        name: 'PeoplePersons',
        component: () => import('./PersonsPage.vue'),
        meta: {
          title: 'Persons',
          permissions: ['plugin:people:view'],
          menu: { name: 'Persons', group: 'People', icon: 'pi pi-users', priority: 10 },
        },
      },
    },
  ],
});
