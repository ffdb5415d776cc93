import type { AnyExtensionObject, ExtensionClient, ListOptions, ListResult, ModelRef } from '@svc/plugin-api';
import { decodeObject, deepCopy } from './codec.js';
import { listQuery, pageInfo } from './list-query.js';
import type { ModelRegistry } from './model-registry.js';
import type { ObjectService, ReadOptions, WriteOptions } from './object-service.js';
import { patchFunction } from './patch-documents.js';

/**
 * The in-process client plugins and controllers use: the same validation, indexes and rules as the HTTP API.
 * `readOptions` apply to get and fetch (a reconciler's client reads what this server applied: ReadOptions.applied).
 */
export function createExtensionClient(
  registry: ModelRegistry,
  objects: ObjectService,
  writeOptions: WriteOptions = {},
  readOptions: ReadOptions = {},
): ExtensionClient {
  const served = (object: AnyExtensionObject) => registry.resolve({ apiVersion: object.apiVersion, kind: object.kind });
  return {
    async get<T extends AnyExtensionObject>(model: ModelRef, name: string) {
      return objects.get<T>(registry.resolve(model), name, readOptions);
    },
    async fetch<T extends AnyExtensionObject>(model: ModelRef, name: string) {
      return objects.find<T>(registry.resolve(model), name, readOptions);
    },
    async list<T extends AnyExtensionObject>(model: ModelRef, options?: ListOptions): Promise<ListResult<T>> {
      const query = listQuery(options ?? {});
      const page = await objects.list(registry.resolve(model), query);
      return {
        ...pageInfo(page.total, query.page ?? 1, query.size),
        items: page.items.map((bytes) => decodeObject(bytes) as T),
      };
    },
    async count(model, options) {
      const { labels, fields } = listQuery(options ?? {});
      return registry.resolve(model).index.count(labels, fields);
    },
    async countBy(model, indexName) {
      return registry.resolve(model).index.countBy(indexName);
    },
    async create<T extends AnyExtensionObject>(object: T) {
      return (await objects.create(served(object), deepCopy(object), writeOptions)).object as T;
    },
    async update<T extends AnyExtensionObject>(object: T) {
      return (await objects.update(served(object), object.metadata.name, deepCopy(object), writeOptions)).object as T;
    },
    async updateStatus<T extends AnyExtensionObject>(object: T) {
      const options: WriteOptions = { ...writeOptions, subresource: 'status' };
      return (await objects.update(served(object), object.metadata.name, deepCopy(object), options)).object as T;
    },
    async patch<T extends AnyExtensionObject>(model: ModelRef, name: string, patch: unknown) {
      const apply = patchFunction(Array.isArray(patch) ? 'json' : 'merge', deepCopy(patch));
      return (await objects.patch(registry.resolve(model), name, apply, writeOptions)).object as T;
    },
    async delete<T extends AnyExtensionObject>(model: ModelRef, name: string) {
      return (await objects.delete(registry.resolve(model), name, writeOptions)).object as T;
    },
  };
}
