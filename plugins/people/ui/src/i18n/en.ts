/**
 * The people plugin's English messages, merged into the console's by `definePlugin({ messages })`; every key is under
 * `people.` so it never meets the console's or another plugin's. `zh-CN.ts` has the same keys (checked by type).
 */
export default {
  people: {
    menu: { group: 'People', persons: 'Persons', mine: 'My persons' },
    list: 'List',
    filter: 'Filter persons',
    gender: 'Gender',
    any: 'Any',
    exactName: 'Exact name',
    search: 'Search',
    newPerson: 'New person',
    editPerson: 'Edit person',
    empty: 'No persons match.',
    emptyMine: 'No persons of yours yet.',
    emptyNone: 'No persons yet.',
    emptyAsk: 'Someone who manages persons can add the first one.',
    showAll: 'Show all persons',
    firstPerson: 'Add the first person',
    name: 'Name',
    age: 'Age',
    actions: 'Actions',
    edit: 'Edit',
    editOne: 'Edit {name}',
    statistics: 'Statistics',
    total: '{n} person in all. | {n} persons in all.',
    byGender: 'Persons by gender',
    saved: 'Saved person {name}',
    created: 'Created person {name}',
    notGiven: 'Not given',
    cancel: 'Cancel',
    save: 'Save',
    male: 'Male',
    female: 'Female',
  },
};
