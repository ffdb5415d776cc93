import type { Component } from 'vue';
import type { RouteRecordRaw } from 'vue-router';
import type { MessagesSource } from './i18n.js';

/** The console's menu entry for a route (`meta.menu`), as Halo's console plugins declare it. */
export interface MenuEntry {
  /** The link's text (and accessible name): a message key (`people.menu.persons`) or, without one, the text itself. */
  name: string;
  /** Entries with the same group are shown together under it (a message key or the text, as `name`). */
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
    /** The page's title: a message key or the text itself, as `menu.name`. */
    title?: string;
  }
}

/** A route a plugin adds under a route of the console: `Root` (the console), `UcRoot` (the personal center) or any
 * named route. */
export interface PluginRoute {
  parentName: 'Root' | 'UcRoot' | (string & {});
  route: RouteRecordRaw;
}

/**
 * A widget of the console's overview (its dashboard): a card with a title, shown to users holding all its UI
 * permissions. The component is loaded when the overview first shows the widget.
 */
export interface DashboardWidget {
  /** Unique among the widgets: `<plugin>-<what>`. */
  id: string;
  /** The card's heading: a message key of the plugin's messages, or a text. */
  title: string;
  component: Component | (() => Promise<Component | { default: Component }>);
  /** UI permissions a user must all hold to see it; none: every signed-in user. */
  permissions?: string[];
  /** Lower comes first; built-in widgets are at 0 to 20. */
  priority?: number;
}

/** What a plugin UI's bundle exports as default (Halo's `definePlugin`). */
export interface PluginModule {
  /** Registered globally under these names while the plugin runs. */
  components?: Record<string, Component>;
  /** Routes under the console. */
  routes?: PluginRoute[];
  /** Routes under the personal center (`/uc/`). */
  ucRoutes?: PluginRoute[];
  /** Widgets of the console's overview, each behind its UI permissions. */
  widgets?: DashboardWidget[];
  /**
   * The plugin's messages by language (`en`, `zh-CN`), merged into the console's vue-i18n before its routes are added;
   * a function loads them only when that language is chosen. Keys go under the plugin's name (`people.…`).
   */
  messages?: Partial<Record<string, MessagesSource>>;
}

/** Declares a plugin UI; the identity function, for types. */
export function definePlugin(plugin: PluginModule): PluginModule {
  return plugin;
}
