import {
  type ExtensionObject,
  invalid,
  KIND,
  type ModelDefinition,
  notFound,
  PLUGIN_API_VERSION,
  PLUGIN_GROUP,
  type PluginSettings,
} from '@svc/plugin-api';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import { compileBodySchema, type ObjectValidator } from '../objects/schema.js';
import type { AdmissionRequest } from '../registry/admission.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { PluginObject } from './plugin-object.js';

/**
 * `plugin.svc.run/v1alpha1` PluginSetting: one per plugin, named after it, its values in `spec`. An object of a model
 * like any other, so settings are watched, backed up and replicated with the rest; admission holds `spec` to the
 * schema the plugin declares (`spec.settings` of its Plugin).
 */
export const pluginSettingModel: ModelDefinition = {
  group: PLUGIN_GROUP,
  version: 'v1alpha1',
  kind: KIND.PluginSetting,
  plural: 'pluginsettings',
  singular: 'pluginsetting',
  schema: {
    type: 'object',
    required: ['spec'],
    properties: { spec: { type: 'object' } },
  },
};

type Values = Record<string, unknown>;

/** A declared settings schema's problem, or undefined when it is a valid JSON Schema of an object (manifest.ts). */
export function settingsSchemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'must be a JSON Schema object';
  if ((schema as Values).type !== 'object') return 'must have type: object (its properties are the settings)';
  try {
    compileBodySchema(schema as Values, 'spec.settings');
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^spec\.settings: /, '');
  }
}

/**
 * Serves the PluginSetting model and what plugins read of it: the values (over the schema's defaults) and their
 * changes, as committed on this server (a replica hears the others' writes as they are applied).
 */
export class PluginSettingsStore {
  private served?: ServedModel;

  constructor(
    private readonly deps: {
      registry: ModelRegistry;
      objects: ObjectService;
      /** The Plugin object named `name`, or undefined when none is installed. */
      plugin: (name: string) => Promise<PluginObject | undefined>;
    },
  ) {}

  /** Registers the model and its admission check; before any plugin starts, so `ctx.settings` reads from the start. */
  async register(): Promise<void> {
    const model = normalizeModelDefinition(pluginSettingModel, { kind: 'system' });
    this.served = await this.deps.registry.register(model, 'core');
    this.deps.objects.admission.add(this.served.model.resource, (request) => this.admit(request));
  }

  /** The settings a plugin's context gives it. */
  forPlugin(name: string, schema: () => Values | undefined): PluginSettings & { close(): void } {
    const listeners = new Set<(values: Values) => void>();
    const unsubscribe = this.deps.objects.onCommitted((change) => {
      if (change.served !== this.served || change.object.metadata.name !== name || listeners.size === 0) return;
      const stored = change.type === 'DELETED' ? {} : ((change.object.spec as Values | undefined) ?? {});
      const values = withDefaults(schema(), stored);
      for (const listener of listeners) listener(values);
    });
    return {
      get: async () => withDefaults(schema(), await this.storedValues(name)),
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      close() {
        listeners.clear();
        unsubscribe();
      },
    };
  }

  private async storedValues(name: string): Promise<Values> {
    if (!this.served) return {};
    const object = await this.deps.objects.find<ExtensionObject>(this.served, name);
    return (object?.spec as Values | undefined) ?? {};
  }

  /** A PluginSetting belongs to an installed plugin that declares settings, and holds values its schema accepts. */
  private async admit(request: AdmissionRequest): Promise<void> {
    if (request.operation === 'delete') return;
    const { object } = request;
    const name = object.metadata.name;
    const plugin = await this.deps.plugin(name);
    if (!plugin) throw notFound(`no plugin named "${name}" is installed: a PluginSetting is named after its plugin`);
    const schema = plugin.spec.settings;
    if (!schema) throw invalid(`plugin "${name}" declares no settings (spec.settings in its plugin.yaml)`);
    // A copy: Ajv fills the schema's defaults in what it checks, and a check changes nothing of the write.
    const errors = validatorOf(schema)(structuredClone(object.spec ?? {}));
    if (errors.length > 0) {
      throw invalid(
        `the settings of plugin "${name}" do not match its schema`,
        errors.map((e) => ({ ...e, path: `/spec${e.path}` })),
      );
    }
  }
}

/** The stored values over the defaults the schema declares (Ajv fills `default`s in a copy). */
function withDefaults(schema: Values | undefined, stored: Values): Values {
  const values = structuredClone(stored);
  if (schema) validatorOf(schema)(values);
  return values;
}

/** Compiled settings schemas by their text: a plugin's schema is compiled once, not at each read or write. */
const validators = new Map<string, ObjectValidator>();
function validatorOf(schema: Values): ObjectValidator {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (!validator) {
    if (validators.size >= 256) validators.clear();
    validator = compileBodySchema(schema, 'spec.settings');
    validators.set(key, validator);
  }
  return validator;
}

/** A PluginSetting object for `plugin` with `values` (what the console and clients write). */
export function pluginSettingObject(plugin: string, values: Values): ExtensionObject {
  return { apiVersion: PLUGIN_API_VERSION, kind: KIND.PluginSetting, metadata: { name: plugin }, spec: values };
}
