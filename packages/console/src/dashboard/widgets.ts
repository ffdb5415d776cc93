import type { DashboardWidget } from '@svc/console-shared';
import { shallowRef } from 'vue';

/** The console's own widgets: what the user may count, the newest objects, and the plugins' health. */
const BUILT_IN: DashboardWidget[] = [
  {
    id: 'svc-counts',
    title: 'dashboard.counts',
    component: () => import('./CountsWidget.vue'),
    permissions: ['system:resources:view'],
    priority: 0,
  },
  {
    id: 'svc-recent',
    title: 'dashboard.recent',
    component: () => import('./RecentWidget.vue'),
    permissions: ['system:resources:view'],
    priority: 10,
  },
  {
    id: 'svc-plugin-health',
    title: 'dashboard.pluginHealth',
    component: () => import('./PluginHealthWidget.vue'),
    permissions: ['system:plugins:view'],
    priority: 20,
  },
];

/** Widgets by their owner (`svc`, or a plugin's name): plugins' come and go as they start and stop. */
const byOwner = shallowRef(new Map<string, DashboardWidget[]>([['svc', BUILT_IN]]));

export function addWidgets(owner: string, widgets: DashboardWidget[]): void {
  const next = new Map(byOwner.value);
  next.set(owner, widgets);
  byOwner.value = next;
}

export function removeWidgets(owner: string): void {
  if (!byOwner.value.has(owner)) return;
  const next = new Map(byOwner.value);
  next.delete(owner);
  byOwner.value = next;
}

/** Every widget, by priority then id; a second widget with an id already taken is left out. */
export function allWidgets(): DashboardWidget[] {
  const seen = new Set<string>();
  return [...byOwner.value.values()]
    .flat()
    .sort((a, b) => (a.priority ?? 50) - (b.priority ?? 50) || a.id.localeCompare(b.id))
    .filter((w) => !seen.has(w.id) && seen.add(w.id));
}
