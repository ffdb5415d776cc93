import type { MenuEntry } from '@svc/console-shared';
// The pure part only: the package's main module makes the browser's client.
import { allows } from '@svc/console-shared/allows';
import { ref } from 'vue';
import type { RouteRecordNormalized } from 'vue-router';

/** Bumped by whoever adds or removes routes at run time (plugin UIs): `router.getRoutes()` is not reactive. */
export const routesVersion = ref(0);

export interface MenuGroup {
  /** Empty for entries without a group. */
  name: string;
  entries: { routeName: string; entry: MenuEntry }[];
}

/**
 * The side menu: the routes under `parent` (by path) that carry `meta.menu` and that `held` UI permissions allow,
 * grouped by `menu.group` (ungrouped first, then groups by their best priority), each group ordered by priority then
 * name. Pure: the layout passes the router's current routes, so routes plugins add at run time appear too, and
 * `label` (a message key or a text → the text shown; `translated` in the console), so names sort as shown.
 */
export function menuOf(
  routes: readonly RouteRecordNormalized[],
  parent: string,
  held: readonly string[],
  label: (textOrKey: string) => string = (text) => text,
): MenuGroup[] {
  const parentPath = routes.find((r) => r.name === parent)?.path;
  if (parentPath === undefined) return [];
  const entries = routes
    .filter((r) => r.meta.menu && typeof r.name === 'string' && r.path.startsWith(`${parentPath}/`))
    .filter((r) => allows(held, r.meta.permissions))
    .map((r) => ({ routeName: r.name as string, entry: r.meta.menu as MenuEntry }))
    .sort(
      (a, b) =>
        (a.entry.priority ?? 0) - (b.entry.priority ?? 0) ||
        label(a.entry.name).localeCompare(label(b.entry.name), 'en'),
    );
  const groups = new Map<string, MenuGroup>();
  for (const item of entries) {
    const name = item.entry.group ?? '';
    if (!groups.has(name)) groups.set(name, { name, entries: [] });
    groups.get(name)?.entries.push(item);
  }
  return [...groups.values()].sort((a, b) => (a.name === '' ? -1 : b.name === '' ? 1 : 0));
}
