import { addMessages, CONSOLE_API, client, type PluginModule, type PluginRoute, session } from '@svc/console-shared';
import type { App } from 'vue';
import type { Router } from 'vue-router';
import { unregisterComponent } from './component-registry';
import { addWidgets, removeWidgets } from './dashboard/widgets';
import { routesVersion } from './menu';

/** A started plugin's UI as `GET …/plugins/-/uis` lists it. */
export interface PluginUiEntry {
  name: string;
  displayName: string;
  version: string;
  entry: string;
  style?: string;
}

/** A plugin UI the console has loaded: what to undo when the plugin stops. */
interface Loaded {
  entry: string;
  removeRoutes: (() => void)[];
  routeNames: string[];
  components: string[];
  link?: HTMLLinkElement;
}

/**
 * Loads the UIs of started plugins into the running console and drops them when their plugin stops, without a page
 * reload (README "Plugin UIs"): each entry is `import()`ed (the import map gives it the console's Vue, router,
 * PrimeVue and `@svc/console-shared`), its components are registered globally and its routes added under their
 * parent by name; the menu follows through `routesVersion`. Refreshes are serialized.
 */
export class PluginUiLoader {
  private readonly loaded = new Map<string, Loaded>();
  private queue: Promise<void> = Promise.resolve();
  /** The user the current set was loaded for (plugin UIs are listed only to signed-in users). */
  loadedFor: string | undefined;

  constructor(
    private readonly app: App,
    private readonly router: Router,
    private readonly importModule: (url: string) => Promise<{ default?: PluginModule }> = (url) =>
      import(/* @vite-ignore */ url),
  ) {}

  /** Reads the list again and loads, reloads or drops UIs to match it. */
  refresh(): Promise<void> {
    const run = this.queue.then(() => this.sync());
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Drops every plugin UI (sign-out). */
  clear(): Promise<void> {
    const run = this.queue.then(() => {
      for (const name of [...this.loaded.keys()]) this.unload(name);
      this.loadedFor = undefined;
      routesVersion.value++;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async sync(): Promise<void> {
    const user = session.user?.username;
    if (!user) return;
    const { items } = await client.request<{ items: PluginUiEntry[] }>('GET', `${CONSOLE_API}/plugins/-/uis`);
    const wanted = new Map(items.map((ui) => [ui.name, ui]));
    let changed = false;
    for (const [name, loaded] of this.loaded) {
      if (wanted.get(name)?.entry === loaded.entry) continue;
      this.unload(name);
      changed = true;
    }
    for (const ui of items) {
      if (this.loaded.has(ui.name)) continue;
      try {
        await this.load(ui);
        changed = true;
      } catch (error) {
        // One broken bundle must not take the console down: the others load, and the console says which failed.
        console.error(`the UI of plugin "${ui.name}" could not be loaded`, error);
      }
    }
    this.loadedFor = user;
    if (changed) routesVersion.value++;
    this.leaveRemovedPage();
  }

  private async load(ui: PluginUiEntry): Promise<void> {
    const link = ui.style ? addStylesheet(ui.style) : undefined;
    let plugin: PluginModule | undefined;
    try {
      plugin = (await this.importModule(ui.entry)).default;
    } catch (error) {
      link?.remove();
      throw error;
    }
    // Its words first, so its menu entries and pages show in the language chosen (README "Languages").
    if (plugin?.messages) await addMessages(plugin.messages);
    const loaded: Loaded = { entry: ui.entry, removeRoutes: [], routeNames: [], components: [], link };
    for (const [name, component] of Object.entries(plugin?.components ?? {})) {
      if (this.app.component(name)) {
        console.warn(`plugin "${ui.name}": a component named ${name} is registered already; kept the first`);
        continue;
      }
      this.app.component(name, component);
      loaded.components.push(name);
    }
    for (const { parentName, route } of [...(plugin?.routes ?? []), ...(plugin?.ucRoutes ?? [])] as PluginRoute[]) {
      if (!this.router.hasRoute(parentName)) {
        console.warn(`plugin "${ui.name}": no route named ${String(parentName)} to add ${String(route.path)} under`);
        continue;
      }
      loaded.removeRoutes.push(this.router.addRoute(parentName, route));
      if (typeof route.name === 'string') loaded.routeNames.push(route.name);
    }
    if (plugin?.widgets?.length) addWidgets(ui.name, plugin.widgets);
    this.loaded.set(ui.name, loaded);
  }

  private unload(name: string): void {
    const loaded = this.loaded.get(name);
    if (!loaded) return;
    for (const remove of loaded.removeRoutes) remove();
    // A plugin's components leave with it.
    for (const component of loaded.components) unregisterComponent(this.app, component);
    loaded.link?.remove();
    removeWidgets(name);
    this.loaded.delete(name);
  }

  /** The page shown may be a route just removed: go to the root it was under (its overview). */
  private leaveRemovedPage(): void {
    const current = this.router.currentRoute.value;
    if (current.matched.length === 0) return;
    const resolved = this.router.resolve(current.fullPath);
    const same = resolved.matched.map((r) => r.name).join('/') === current.matched.map((r) => r.name).join('/');
    if (same) return;
    const root = current.matched[0]?.name === 'UcRoot' ? 'UcRoot' : 'Root';
    // A route added back (the plugin started) resolves again now: navigate to it afresh.
    const to = resolved.matched.some((r) => r.name === 'NotFound' || r.name === 'UcNotFound')
      ? { name: root }
      : current.fullPath;
    void this.router.replace(to);
  }
}

function addStylesheet(href: string): HTMLLinkElement {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  link.dataset.pluginUi = '';
  document.head.append(link);
  return link;
}

/**
 * Plugs the loader into the app: before a navigation of a signed-in user the plugin UIs are loaded once (a deep link
 * to a plugin's page works on the first load), and the console events keep them and the session current.
 */
export function installPluginUis(
  app: App,
  router: Router,
  follow: (router: Router, uis: PluginUiLoader) => void,
): PluginUiLoader {
  const loader = new PluginUiLoader(app, router);
  router.beforeEach(async (to) => {
    if (!session.user || loader.loadedFor === session.user.username) return true;
    try {
      await loader.refresh();
    } catch (error) {
      console.error('the plugin UIs could not be listed', error);
      return true;
    }
    // The target may be a plugin's page only now added: match it again.
    return router.resolve(to.fullPath).name === to.name ? true : to.fullPath;
  });
  follow(router, loader);
  return loader;
}
