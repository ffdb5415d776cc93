import type { ModelDefinition, ModelRef } from './models.js';
import type { AnyExtensionObject, ExtensionObject, ListOptions, ListResult } from './objects.js';
import type { ReconcilerRegistry } from './reconcilers.js';
import type { CustomRoute } from './routes.js';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What a plugin uses to register models. Everything registered is unregistered when the plugin stops. */
export interface PluginModels {
  /** Registers a model and builds its indexes from the stored objects. */
  register<T extends AnyExtensionObject>(definition: ModelDefinition<T>): Promise<void>;
}

/** Server-side access to objects, with the same validation and index rules as the HTTP API. */
export interface ExtensionClient {
  get<T extends AnyExtensionObject = ExtensionObject>(model: ModelRef, name: string): Promise<T>;
  /** Like get, but undefined when the object does not exist. */
  fetch<T extends AnyExtensionObject = ExtensionObject>(model: ModelRef, name: string): Promise<T | undefined>;
  list<T extends AnyExtensionObject = ExtensionObject>(model: ModelRef, options?: ListOptions): Promise<ListResult<T>>;
  /** Counts matching objects from the indexes alone, without reading objects. */
  count(model: ModelRef, options?: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>): Promise<number>;
  /** Counts objects per value of an index, from the index alone. */
  countBy(model: ModelRef, indexName: string): Promise<Record<string, number>>;
  create<T extends AnyExtensionObject>(object: T): Promise<T>;
  /** Replaces the object; `metadata.version` must equal the stored one. */
  update<T extends AnyExtensionObject>(object: T): Promise<T>;
  /** Declares deletion: sets deletionTimestamp; the object is removed once its finalizers are empty. */
  delete<T extends AnyExtensionObject = ExtensionObject>(model: ModelRef, name: string): Promise<T>;
  /**
   * Writes only `status`, as the status subresource does (for any model); everything else in
   * `object` is ignored. `metadata.version` must equal the stored one.
   */
  updateStatus<T extends AnyExtensionObject>(object: T): Promise<T>;
  /**
   * Patches the stored object, as the generated PATCH route does: an array is a JSON Patch (RFC 6902, a failed
   * `test` is a 409), an object a JSON Merge Patch (RFC 7386). The result is validated like any write.
   */
  patch<T extends AnyExtensionObject = ExtensionObject>(
    model: ModelRef,
    name: string,
    patch: readonly JsonPatchOperation[] | Record<string, unknown>,
  ): Promise<T>;
}

/** One JSON Patch (RFC 6902) operation. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export interface RouteRegistry {
  add(route: CustomRoute): void;
}

/**
 * The plugin's settings (`spec.settings` in `plugin.yaml`): the values an administrator saved, over the schema's
 * defaults. Listeners hear every change, on every replica; they are removed when the plugin stops.
 */
export interface PluginSettings<T extends Record<string, unknown> = Record<string, unknown>> {
  get(): Promise<T>;
  /** Calls `listener` with the new values after each change; returns the unsubscribe. */
  onChange(listener: (values: T) => void): () => void;
}

export interface PluginContext {
  /** The plugin's name from `plugin.yaml`. */
  readonly name: string;
  readonly logger: Logger;
  readonly models: PluginModels;
  readonly client: ExtensionClient;
  readonly routes: RouteRegistry;
  /** Controllers that reconcile the plugin's (or any) model's objects; stopped when the plugin stops. */
  readonly reconcilers: ReconcilerRegistry;
  /** The settings values the plugin declared in `spec.settings` ({} with none declared). */
  readonly settings: PluginSettings;
}

export interface Plugin {
  start(context: PluginContext): void | Promise<void>;
  stop?(context: PluginContext): void | Promise<void>;
}

/** Creates a plugin. It only adds types: a plain `{ start, stop }` object works the same. */
export function definePlugin(plugin: Plugin): Plugin {
  return plugin;
}
