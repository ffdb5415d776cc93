import { type ChangeFeed, type ExtensionObject, SvcApiError } from '@svc/client';
import { client, errorMessage, fieldErrors, t } from '@svc/console-shared';
import { useConfirm } from 'primevue/useconfirm';
import { useToast } from 'primevue/usetoast';
import { computed, onBeforeUnmount, ref, watch } from 'vue';
import { useRoute, useRouter } from 'vue-router';
import { parse, stringify } from 'yaml';
import { labelsOfText, labelsTextOf } from './labels-text';
import { applyMergePatch, cloneJson, mergePatchBetween } from './merge-patch';
import { type BrowsableModel, findModel, groupOfSegment, may } from './models';
import { objectForm, pointersOf, withValueAt } from './schema-fields';

export type Obj = ExtensionObject & Record<string, unknown>;

/**
 * One object, or a new one: edited as a form generated from the model's schema or as YAML. A save against a stale
 * `metadata.version` offers the server's version and re-applies the user's changes on top of it (a merge patch);
 * validation errors are shown at their paths; a delete shows the finalizers the object waits for. The object is
 * followed on the server while it is shown.
 */
export function useResourceObject() {
  const route = useRoute();
  const router = useRouter();
  const confirm = useConfirm();
  const toast = useToast();

  const model = ref<BrowsableModel>();
  /** The object as last read from the server (undefined when creating). */
  const loaded = ref<Obj>();
  /** What the user edits. */
  const draft = ref<Obj>({} as Obj);
  const yamlText = ref('');
  const tab = ref<'form' | 'yaml'>('form');
  const problem = ref('');
  const errors = ref<Record<string, string>>({});
  const conflict = ref<Obj>();
  const notice = ref('');
  const gone = ref(false);
  const missing = ref(false);
  const saving = ref(false);
  let feed: ChangeFeed<Obj> | undefined;

  const creating = computed(() => route.name === 'ResourceCreate');
  const resourceRef = computed(() => ({
    group: groupOfSegment(String(route.params.group)),
    version: String(route.params.version),
    plural: String(route.params.plural),
  }));
  const resource = computed(() => client.resource<Obj>(resourceRef.value));
  const fields = computed(() =>
    objectForm(model.value?.schema as Record<string, unknown> | undefined, model.value?.statusSubresource ?? false),
  );
  const editable = computed(() => (creating.value ? may(model.value, 'create') : may(model.value, 'update')));
  const deleting = computed(() => loaded.value?.metadata.deletionTimestamp);
  const finalizers = computed(() => loaded.value?.metadata.finalizers ?? []);
  const listRoute = computed(() => ({ name: 'ResourceList', params: { ...route.params, name: undefined } }));
  /** Errors the form shows at a field of its own; the rest are listed above it. */
  const formPointers = computed(() => new Set(['/metadata/name', '/metadata/labels', ...pointersOf(fields.value)]));
  const listedErrors = computed(() =>
    Object.entries(errors.value).filter(([path]) => tab.value === 'yaml' || !formPointers.value.has(path)),
  );

  const labelsText = computed(() => labelsTextOf(draft.value.metadata?.labels));
  function setLabels(text: string | undefined) {
    const labels = labelsOfText(text);
    setAt(['metadata', 'labels'], Object.keys(labels).length > 0 ? labels : undefined);
  }

  function setAt(path: string[], value: unknown) {
    draft.value = withValueAt(draft.value, path, value) as Obj;
    if (!draft.value.metadata) draft.value.metadata = { name: '' };
  }

  function show(object: Obj) {
    loaded.value = object;
    draft.value = cloneJson(object);
    yamlText.value = stringify(object);
  }

  /** The object being edited, from whichever view the user is in. */
  function edited(): Obj | undefined {
    if (tab.value === 'form') return draft.value;
    try {
      return parse(yamlText.value) as Obj;
    } catch (e) {
      problem.value = t('resources.yamlParse', { reason: (e as Error).message.split('\n')[0] });
      return undefined;
    }
  }

  function switchTab(value: string | number) {
    const next = value as 'form' | 'yaml';
    if (next === tab.value) return;
    if (next === 'yaml') yamlText.value = stringify(draft.value);
    else {
      const object = edited();
      if (!object) return;
      draft.value = object;
    }
    problem.value = '';
    tab.value = next;
  }

  async function save() {
    const object = edited();
    if (!object) return;
    problem.value = '';
    errors.value = {};
    notice.value = '';
    saving.value = true;
    try {
      if (creating.value) {
        const made = await resource.value.create(object);
        toast.add({ severity: 'success', summary: t('resources.created', { name: made.metadata.name }), life: 3000 });
        await router.replace({ name: 'ResourceObject', params: { ...route.params, name: made.metadata.name } });
        return;
      }
      show(await resource.value.update(object));
      toast.add({
        severity: 'success',
        summary: t('resources.saved', { name: object.metadata?.name ?? '' }),
        life: 3000,
      });
    } catch (e) {
      await refused(e, object);
    } finally {
      saving.value = false;
    }
  }

  async function refused(e: unknown, object: Obj) {
    if (e instanceof SvcApiError && e.status === 409 && loaded.value) {
      const theirs = await resource.value.get(loaded.value.metadata.name).catch(() => undefined);
      if (theirs && theirs.metadata.version !== loaded.value.metadata.version) {
        draft.value = object;
        conflict.value = theirs;
        return;
      }
    }
    // A name taken shows at the Name field, not above the form.
    errors.value = fieldErrors(e, creating.value ? '/metadata/name' : undefined);
    problem.value = creating.value && errors.value['/metadata/name'] ? '' : errorMessage(e);
  }

  /** Takes the server's version and re-applies the user's changes to it as a merge patch; the user reviews and saves. */
  function mergeMine() {
    const theirs = conflict.value;
    if (!theirs || !loaded.value) return;
    const mine = mergePatchBetween(loaded.value, draft.value) as Record<string, unknown>;
    const metadata = mine.metadata as Record<string, unknown> | undefined;
    if (metadata) {
      delete metadata.version;
      delete metadata.resourceVersion;
    }
    const merged = applyMergePatch(theirs, mine) as Obj;
    loaded.value = theirs;
    draft.value = merged;
    yamlText.value = stringify(merged);
    conflict.value = undefined;
    notice.value = t('resources.merged', { version: theirs.metadata.version ?? '' });
  }

  function discardMine() {
    if (!conflict.value) return;
    show(conflict.value);
    conflict.value = undefined;
    notice.value = t('resources.discarded', { version: loaded.value?.metadata.version ?? '' });
  }

  function remove() {
    const object = loaded.value;
    if (!object) return;
    const waits = object.metadata.finalizers ?? [];
    confirm.require({
      header: t('resources.deleteHeader', { name: object.metadata.name }),
      message:
        waits.length > 0 ? t('resources.deleteWaits', { finalizers: waits.join(', ') }) : t('resources.deleteNow'),
      acceptProps: { label: t('common.delete'), severity: 'danger' },
      rejectProps: { label: t('common.cancel'), severity: 'secondary', outlined: true },
      accept: async () => {
        try {
          const after = await resource.value.delete(object.metadata.name);
          if ((after.metadata.finalizers ?? []).length > 0) show(after);
          else await router.push(listRoute.value);
        } catch (e) {
          problem.value = errorMessage(e);
        }
      },
    });
  }

  /** Follows the object on the server: shows others' changes when the user has none, and its removal. */
  function follow(object: Obj) {
    void feed?.stop();
    feed = resource.value.changes({
      resourceVersion: object.metadata.resourceVersion ?? '0',
      fieldSelector: `metadata.name=${object.metadata.name}`,
      change: (event) => {
        if (event.type === 'DELETED') {
          gone.value = true;
          return;
        }
        const untouched = JSON.stringify(draft.value) === JSON.stringify(loaded.value);
        if (untouched && !conflict.value) show(event.object);
        else if (!conflict.value) notice.value = t('resources.changedElsewhere');
      },
    });
    feed.start();
  }

  watch(
    () => route.fullPath,
    async () => {
      if (route.name !== 'ResourceObject' && route.name !== 'ResourceCreate') return;
      void feed?.stop();
      problem.value = '';
      errors.value = {};
      conflict.value = undefined;
      notice.value = '';
      gone.value = false;
      missing.value = false;
      try {
        model.value = await findModel(resourceRef.value.group, resourceRef.value.version, resourceRef.value.plural);
        if (!model.value) {
          missing.value = true;
          return;
        }
        if (creating.value) {
          loaded.value = undefined;
          draft.value = { apiVersion: model.value.apiVersion, kind: model.value.kind, metadata: { name: '' } } as Obj;
          yamlText.value = stringify(draft.value);
          return;
        }
        const object = await resource.value.get(String(route.params.name));
        show(object);
        follow(object);
      } catch (e) {
        if (e instanceof SvcApiError && e.status === 404) missing.value = true;
        else problem.value = errorMessage(e);
      }
    },
    { immediate: true },
  );
  onBeforeUnmount(() => void feed?.stop());

  return {
    route,
    model,
    loaded,
    draft,
    yamlText,
    tab,
    problem,
    errors,
    conflict,
    notice,
    gone,
    missing,
    saving,
    creating,
    fields,
    editable,
    deleting,
    finalizers,
    listRoute,
    listedErrors,
    labelsText,
    setLabels,
    setAt,
    switchTab,
    save,
    mergeMine,
    discardMine,
    remove,
  };
}
