import type { AnyExtensionObject, ChangeEvent, ChangeFeed, ListEnvelope, ListQuery, ResourceClient } from '@svc/client';
import { getCurrentScope, onScopeDispose, reactive, ref, shallowRef, watch } from 'vue';
import { errorMessage } from './client.js';

export interface LiveListOptions<T extends AnyExtensionObject> {
  /** The model's client; `undefined` while it is not known (nothing is listed). Reactive: a change lists again. */
  resource: () => ResourceClient<T> | undefined;
  /** The page, size, order and selectors. Reactive: a change lists again (the watch takes the same selectors). */
  query: () => ListQuery;
  /**
   * Whether a new object belongs at the top of the shown page (the default order, newest first, on the first page):
   * it is put there at once. Otherwise a new object makes the page be read again, so it lands where the order says.
   */
  newestFirst?: () => boolean;
  /** List when `resource` or `query` change (true by default); false: the caller calls `load()` itself. */
  auto?: boolean;
}

/** How the page follows its changes: `off` before the first list, `reconnecting` after a failed watch. */
export type LiveState = 'off' | 'following' | 'reconnecting';

/** Objects read again within this time after a change are read once: a burst of creates costs one list. */
const REFRESH_DELAY_MS = 200;

/**
 * A live, paged list of one model's objects: reads a page, then follows the changes after the page's revision
 * (`resourceVersion`) with the same selectors, resuming its watch after a dropped connection without losing an event.
 * Changed rows are replaced and deleted rows removed in place; new rows go to the top (newest first) or make the page
 * be read again. When the revision has left the server's history (410) the page is listed again and followed from its
 * new revision. Everything stops when the calling component (or effect scope) is disposed.
 */
export function useLiveList<T extends AnyExtensionObject>(options: LiveListOptions<T>) {
  const rows = shallowRef<T[]>([]);
  const total = ref(0);
  const loading = ref(false);
  const error = ref('');
  const live = reactive({ state: 'off' as LiveState, changes: 0 });
  let feed: ChangeFeed<T> | undefined;
  let generation = 0;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;

  function stop() {
    generation++;
    clearTimeout(refreshTimer);
    void feed?.stop();
    feed = undefined;
    live.state = 'off';
  }

  /** Reads the page (or takes one already asked for, e.g. prefetched) and follows its changes. */
  async function load(asked?: Promise<ListEnvelope<T>>): Promise<void> {
    const resource = options.resource();
    stop();
    if (!resource) return;
    const mine = generation;
    const query = options.query();
    loading.value = true;
    try {
      const page = await (asked ?? resource.list(query));
      if (mine !== generation) return;
      rows.value = page.items;
      total.value = page.total;
      error.value = '';
      follow(resource, query, page.metadata.resourceVersion, mine);
    } catch (e) {
      if (mine === generation) error.value = errorMessage(e);
    } finally {
      if (mine === generation) loading.value = false;
    }
  }

  /** Reads the shown page again while the feed goes on: rows and total as the server has them now. */
  async function refresh(resource: ResourceClient<T>, query: ListQuery, mine: number) {
    try {
      const page = await resource.list(query);
      if (mine !== generation) return;
      rows.value = page.items;
      total.value = page.total;
    } catch (e) {
      if (mine === generation) error.value = errorMessage(e);
    }
  }

  function follow(resource: ResourceClient<T>, query: ListQuery, resourceVersion: string, mine: number) {
    live.changes = 0;
    live.state = 'following';
    const refreshSoon = () => {
      clearTimeout(refreshTimer);
      refreshTimer = setTimeout(() => void refresh(resource, query, mine), REFRESH_DELAY_MS);
    };
    feed = resource.changes({
      resourceVersion,
      labelSelector: query.labelSelector,
      fieldSelector: query.fieldSelector,
      change: (event) => {
        if (mine !== generation) return;
        live.state = 'following';
        live.changes++;
        apply(event, refreshSoon);
      },
      // 410 Gone: list again, which follows from the new list's revision. Any other end (a watch the caller may
      // not make) leaves the page as read, not live.
      ended: (e) => {
        if (mine !== generation) return;
        if (e.status === 410) void load();
        else live.state = 'off';
      },
      error: () => {
        if (mine === generation) live.state = 'reconnecting';
      },
    });
    feed.start();
  }

  function apply(event: ChangeEvent<T>, refreshSoon: () => void) {
    const name = event.object.metadata.name;
    const at = rows.value.findIndex((r) => r.metadata.name === name);
    if (event.type === 'DELETED') {
      if (at >= 0) rows.value = rows.value.filter((_, i) => i !== at);
      total.value = Math.max(0, total.value - 1);
      // A row from the next page moves up into the gap.
      if (at >= 0 && total.value > rows.value.length) refreshSoon();
      return;
    }
    if (at >= 0) {
      if (newer(event.object, rows.value[at] as T)) {
        const next = rows.value.slice();
        next[at] = event.object;
        rows.value = next;
      }
      return;
    }
    if (options.newestFirst?.()) {
      const size = options.query().size ?? rows.value.length + 1;
      rows.value = [event.object, ...rows.value].slice(0, size);
      if (event.type === 'ADDED') total.value++;
      return;
    }
    // Added, or changed into the selection: where it goes is the server's order.
    if (event.type === 'ADDED') total.value++;
    refreshSoon();
  }

  if (options.auto !== false) {
    watch(
      () => [options.resource(), JSON.stringify(options.query())] as const,
      () => void load(),
      { immediate: true },
    );
  }
  if (getCurrentScope()) onScopeDispose(stop);

  return { rows, total, loading, error, live, load, stop };
}

/** Whether `a` is a later version of the object than `b` (a page read again may be ahead of the feed). */
function newer(a: AnyExtensionObject, b: AnyExtensionObject): boolean {
  const x = a.metadata.resourceVersion;
  const y = b.metadata.resourceVersion;
  if (!x || !y || !/^\d+$/.test(x) || !/^\d+$/.test(y)) return true;
  return x.length !== y.length ? x.length > y.length : x > y;
}
