/**
 * The modules the console shares with plugin UIs through its import map: a plugin bundle imports these by name and
 * gets the console's own instances (one Vue, one router, one client and session), so it carries only its own code.
 * Keep this list stable: removing a name breaks plugin bundles built against it.
 */
export const SHARED_MODULES: Record<string, string> = {
  vue: "export * from 'vue';",
  'vue-router': "export * from 'vue-router';",
  '@svc/console-shared': "export * from '@svc/console-shared';",
  ...Object.fromEntries(
    [
      'button',
      'card',
      'checkbox',
      'column',
      'confirmdialog',
      'datatable',
      'dialog',
      'divider',
      'inputnumber',
      'inputtext',
      'message',
      'multiselect',
      'paginator',
      'password',
      'progressspinner',
      'select',
      'selectbutton',
      'skeleton',
      'tab',
      'tablist',
      'tabpanel',
      'tabpanels',
      'tabs',
      'tag',
      'textarea',
      'toast',
      'toggleswitch',
      'tooltip',
    ].map((name) => [`primevue/${name}`, `export { default } from 'primevue/${name}';`]),
  ),
  'primevue/usetoast': "export * from 'primevue/usetoast';",
  'primevue/useconfirm': "export * from 'primevue/useconfirm';",
};

/** The rollup entry name of a shared module: `primevue/button` → `shared-primevue-button`. */
export function entryName(specifier: string): string {
  return `shared-${specifier.replace(/^@/, '').replace(/[^a-z0-9]+/gi, '-')}`;
}
