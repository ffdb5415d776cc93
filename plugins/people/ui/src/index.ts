import { definePlugin } from '@svc/console-shared';
import PersonsPage from './PersonsPage.vue';

/** The people plugin's console UI: the "Persons" page under the console, for holders of `plugin:people:view`. */
export default definePlugin({
  routes: [
    {
      parentName: 'Root',
      route: {
        path: 'persons',
        name: 'PeoplePersons',
        component: PersonsPage,
        meta: {
          title: 'Persons',
          permissions: ['plugin:people:view'],
          menu: { name: 'Persons', group: 'People', icon: 'pi pi-users', priority: 10 },
        },
      },
    },
  ],
});
