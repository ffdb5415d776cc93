import type { Component } from 'vue';
import type { RouteRecordRaw } from 'vue-router';

/** The console's menu entry for a route (`meta.menu`), as Halo's console plugins declare it. */
export interface MenuEntry {
  /** The link's text (and accessible name). */
  name: string;
  /** Entries with the same group are shown together under it. */
  group?: string;
  /** An icon name (PrimeIcons, e.g. `pi pi-users`), decorative. */
  icon?: string;
  /** Lower comes first; 0 by default. */
  priority?: number;
}

declare module 'vue-router' {
  interface RouteMeta {
    /** UI permissions a user must all hold to open this route (and see its menu entry); none: every signed-in user. */
    permissions?: string[];
    /** An entry in the layout's side menu. */
    menu?: MenuEntry;
    /** Reachable without signing in. */
    public?: boolean;
    title?: string;
  }
}

/** A route a plugin adds under a route of the console: `Root` (the console), `UcRoot` (the personal center) or any
 * named route. */
export interface PluginRoute {
  parentName: 'Root' | 'UcRoot' | (string & {});
  route: RouteRecordRaw;
}

/** What a plugin UI's bundle exports as default (Halo's `definePlugin`). */
export interface PluginModule {
  /** Registered globally under these names while the plugin runs. */
  components?: Record<string, Component>;
  /** Routes under the console. */
  routes?: PluginRoute[];
  /** Routes under the personal center (`/uc/`). */
  ucRoutes?: PluginRoute[];
}

/** Declares a plugin UI; the identity function, for types. */
export function definePlugin(plugin: PluginModule): PluginModule {
  return plugin;
}
