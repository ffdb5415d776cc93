/**
 * English messages of the live console's features: the audit page, search, the dashboard and the object editor. Kept
 * beside en.ts (which spreads them in) so each feature's texts are read together.
 */
export default {
  audit: {
    menu: 'Audit log',
    title: 'Audit log',
    filters: 'Filter audit events',
    user: 'User',
    verb: 'Verb',
    resource: 'Resource',
    name: 'Name',
    since: 'Since (UTC)',
    until: 'Until (UTC)',
    search: 'Search',
    clear: 'Clear',
    caption: 'Audit events, newest first (page {page})',
    time: 'Time',
    code: 'Status',
    empty: 'No events match. Clear the filters or widen the time range.',
    pages: 'Audit log pages',
    previous: 'Previous',
    next: 'Next',
  },
  search: {
    open: 'Search (Ctrl+K)',
    title: 'Search',
    label: 'Search pages and objects',
    placeholder: 'A page, or an object’s exact name',
    results: 'Results',
    page: 'Page',
    none: 'Nothing found for “{words}”.',
    hint: 'Ctrl+K or ⌘K opens search; ↑ ↓ choose, Enter opens.',
  },
  dashboard: {
    title: 'Dashboard',
    counts: 'Objects you may see',
    recent: 'Recent changes',
    pluginHealth: 'Plugin health',
    noModels: 'No model you may list yet. Ask an administrator for a role that lists one.',
    noRecent: 'Nothing created yet. Create an object from Resources, or through the API.',
    noPlugins: 'No plugins installed. Install one from the Plugins page.',
    pending: 'Pending',
  },
  editing: {
    pickRole:
      'Tick at least one role: a token acts with the roles ticked here only, and one without roles may do no more than any signed-in user (read the public API and its own profile).',
    postsEmpty: 'No posts yet. Write the first with New post.',
  },
};
