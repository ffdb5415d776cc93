import { SvcApiError } from '@svc/client';
import { client, errorMessage, fieldErrors } from '@svc/console-shared';
import { KIND, PLUGIN_API_VERSION, PLUGIN_GROUP, type PluginSettingObject, SERVICE_VERSION } from '@svc/plugin-api';
import { computed, ref } from 'vue';
import { fieldsOf, type Schema, withValueAt } from '../resources/schema-fields';

/** The PluginSetting objects: one per plugin, named after it. */
export const PLUGIN_SETTINGS = { group: PLUGIN_GROUP, version: SERVICE_VERSION, plural: 'pluginsettings' } as const;

/**
 * A plugin's settings form: the fields of the schema it declares (under `spec`, where svc's errors point), the values
 * saved (none yet: the schema's defaults show as the plugin reads them), and saving them (created the first time).
 */
export function usePluginSettings(name: () => string, schema: () => Schema | undefined) {
  const fields = computed(() => {
    const declared = schema();
    return declared ? fieldsOf(declared, ['spec']) : [];
  });
  const draft = ref<Record<string, unknown>>({ spec: {} });
  const stored = ref<PluginSettingObject>();
  const errors = ref<Record<string, string>>({});
  const error = ref('');
  const saved = ref(false);
  const saving = ref(false);
  const settings = () => client.resource<PluginSettingObject>(PLUGIN_SETTINGS);

  async function load() {
    try {
      stored.value = await settings().get(name());
    } catch (e) {
      if (!(e instanceof SvcApiError && e.status === 404)) error.value = errorMessage(e);
      stored.value = undefined;
    }
    draft.value = { spec: { ...defaultsOf(schema()), ...(stored.value?.spec ?? {}) } };
  }

  function set(path: string[], value: unknown) {
    draft.value = withValueAt(draft.value, path, value);
    if (!draft.value.spec) draft.value = { spec: {} };
    saved.value = false;
  }

  async function save() {
    saving.value = true;
    errors.value = {};
    error.value = '';
    const spec = (draft.value.spec ?? {}) as Record<string, unknown>;
    try {
      stored.value = stored.value
        ? await settings().update({ ...stored.value, spec })
        : await settings().create({
            apiVersion: PLUGIN_API_VERSION,
            kind: KIND.PluginSetting,
            metadata: { name: name() },
            spec,
          });
      saved.value = true;
    } catch (e) {
      errors.value = fieldErrors(e);
      error.value = errorMessage(e);
    } finally {
      saving.value = false;
    }
  }

  return { fields, draft, errors, error, saved, saving, load, set, save };
}

/** The `default` of each top-level setting the schema declares. */
function defaultsOf(schema: Schema | undefined): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, Schema>;
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([, property]) => property && 'default' in property)
      .map(([key, property]) => [key, property.default]),
  );
}
