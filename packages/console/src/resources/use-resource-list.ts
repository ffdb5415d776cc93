import type { ExtensionObject } from '@svc/client';
import { client, errorMessage, useLiveList } from '@svc/console-shared';
import type { DataTablePageEvent, DataTableSortEvent } from 'primevue/datatable';
import { computed, reactive, ref, watch } from 'vue';
import { useRoute, useRouter } from 'vue-router';
import { type BrowsableModel, groupOfSegment, loadModels, may, sortIndexOf } from './models';
import { takePrefetched } from './prefetch';
import {
  DEFAULT_PAGE_SIZE,
  type FieldFilter,
  fieldFiltersOf,
  fieldSelectorOf,
  type ListState,
  queryOf,
  sortOf,
  stateOf,
} from './selectors';

/**
 * One model's objects, a page at a time from the server (never all of them): selectors offered from the model's
 * indexes, sorting on indexed columns, and the page kept live by a change feed that resumes its watch.
 */
export function useResourceList() {
  const route = useRoute();
  const router = useRouter();
  const model = ref<BrowsableModel>();
  const first = ref(0);
  const size = ref(DEFAULT_PAGE_SIZE);
  const sortField = ref<string>();
  const sortOrder = ref<number>();
  const notFound = ref(false);

  const labelSelector = ref('');
  const emptyFilter = (): FieldFilter => ({ index: '', operator: '=', value: '' });
  const fieldFilters = reactive<FieldFilter[]>([emptyFilter()]);
  /** The selectors the shown page was read with (the form may hold edits not applied yet). */
  const applied = reactive<{ labelSelector?: string; fieldSelector?: string }>({});

  const resourceRef = computed(() => ({
    group: groupOfSegment(String(route.params.group)),
    version: String(route.params.version),
    plural: String(route.params.plural),
  }));
  const resource = computed(() => client.resource(resourceRef.value));
  const indexNames = computed(() => model.value?.indexes.map((i) => i.name) ?? []);
  /** Printer columns as `kubectl get` shows them (priority 0), each sortable when an index holds its field. */
  const columns = computed(() =>
    (model.value?.printerColumns ?? [])
      .filter((c) => !c.priority)
      .map((c) => ({ ...c, sortIndex: model.value ? sortIndexOf(model.value, c.jsonPath) : undefined })),
  );
  const enumOf = (index: string): string[] | undefined => {
    let schema = model.value?.schema as Record<string, unknown> | undefined;
    for (const key of index.split('.')) schema = (schema?.properties as Record<string, Record<string, unknown>>)?.[key];
    return Array.isArray(schema?.enum) ? (schema.enum as unknown[]).map(String) : undefined;
  };

  const query = () => ({
    page: Math.floor(first.value / size.value) + 1,
    size: size.value,
    sort: sortOf(sortField.value, sortOrder.value),
    labelSelector: applied.labelSelector,
    fieldSelector: applied.fieldSelector,
  });
  const list = () => resource.value.list(query());

  // The page kept live: the route's watcher below says when to read it (with the prefetched page when there is one).
  const { rows, total, loading, error, live, load, stop } = useLiveList<ExtensionObject>({
    resource: () => (model.value ? resource.value : undefined),
    query,
    // The newest first is the default order: a new object belongs at the top of the first page.
    newestFirst: () => first.value === 0 && !sortField.value,
    auto: false,
  });

  /** The table's state lives in the URL's query, so back from an object returns to the same page and filters. */
  function show(state: ListState) {
    void router.replace({ query: queryOf(state) });
  }

  const current = (): ListState => ({
    page: Math.floor(first.value / size.value) + 1,
    size: size.value,
    sort: sortOf(sortField.value, sortOrder.value),
    labelSelector: applied.labelSelector,
    fieldSelector: applied.fieldSelector,
  });

  function applyFilters() {
    show({
      ...current(),
      page: 1,
      labelSelector: labelSelector.value.trim() || undefined,
      fieldSelector: fieldSelectorOf(fieldFilters),
    });
  }

  function clearFilters() {
    show({ ...current(), page: 1, labelSelector: undefined, fieldSelector: undefined });
  }

  function onPage(event: DataTablePageEvent) {
    show({ ...current(), page: Math.floor(event.first / event.rows) + 1, size: event.rows });
  }

  function onSort(event: DataTableSortEvent) {
    const field = typeof event.sortField === 'string' ? event.sortField : undefined;
    show({ ...current(), page: 1, sort: sortOf(field, event.sortOrder ?? undefined) });
  }

  /** Takes the table's state from the URL (and the filter form's, so it shows what is applied). */
  function readState() {
    const state = stateOf(route.query);
    size.value = state.size;
    first.value = (state.page - 1) * state.size;
    const [field, direction] = state.sort?.split(',') ?? [];
    sortField.value = field || undefined;
    sortOrder.value = field ? (direction === 'desc' ? -1 : 1) : undefined;
    applied.labelSelector = state.labelSelector;
    applied.fieldSelector = state.fieldSelector;
    labelSelector.value = state.labelSelector ?? '';
    const filters = fieldFiltersOf(state.fieldSelector);
    fieldFilters.splice(0, fieldFilters.length, ...(filters.length > 0 ? filters : [emptyFilter()]));
  }

  let shownPath: string | undefined;
  watch(
    () => route.fullPath,
    async () => {
      if (route.name !== 'ResourceList') return;
      stop();
      readState();
      if (route.path === shownPath && model.value) {
        await load();
        return;
      }
      shownPath = route.path;
      notFound.value = false;
      model.value = undefined;
      // The model and the first page at once (prefetched when the route was entered): one round trip, not two.
      const prefetched = takePrefetched(route.fullPath);
      const page = prefetched?.page ?? list();
      page.catch(() => undefined);
      try {
        const { group, version, plural } = resourceRef.value;
        const models = await (prefetched?.models ?? loadModels());
        const found = models.find((m) => m.group === group && m.version === version && m.plural === plural);
        if (!found || !may(found, 'list')) {
          notFound.value = true;
          return;
        }
        model.value = found;
        await load(page);
      } catch (e) {
        error.value = errorMessage(e);
      }
    },
    { immediate: true },
  );

  return {
    route,
    model,
    rows,
    total,
    first,
    size,
    sortField,
    sortOrder,
    loading,
    error,
    notFound,
    labelSelector,
    fieldFilters,
    emptyFilter,
    live,
    indexNames,
    columns,
    enumOf,
    applyFilters,
    clearFilters,
    onPage,
    onSort,
  };
}
