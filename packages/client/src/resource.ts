import { ChangeFeed, type ChangeFeedOptions } from './change-feed.js';
import type { Transport } from './http.js';
import { Informer, type InformerOptions } from './informer.js';
import { collectionPath, listQuery, objectPath } from './paths.js';
import type {
  AnyExtensionObject,
  DeleteOptions,
  JsonPatchOperation,
  ListEnvelope,
  ListQuery,
  ResourceRef,
  WatchOptions,
  WriteOptions,
} from './types.js';
import { Watch } from './watch.js';

const PATCH_TYPES = { merge: 'application/merge-patch+json', json: 'application/json-patch+json' } as const;

/** A model's objects, typed: the generated REST API of docs/api.md "Generated routes", and watches over it. */
export class ResourceClient<T extends AnyExtensionObject> {
  constructor(
    private readonly transport: Transport,
    readonly ref: ResourceRef,
  ) {}

  /** A page of objects (or all of them when no `size`/`limit` is given). */
  list(options: ListQuery = {}): Promise<ListEnvelope<T>> {
    return this.transport.json('GET', collectionPath(this.ref), { query: listQuery(options) });
  }

  /** Every matching object, following `continue` tokens `limit` objects at a time. */
  async *listAll(options: Omit<ListQuery, 'page' | 'size' | 'continue'> & { limit?: number } = {}): AsyncGenerator<T> {
    let token: string | undefined;
    do {
      const page = await this.list({ ...options, limit: options.limit ?? 500, continue: token });
      yield* page.items;
      token = page.metadata.continue;
    } while (token);
  }

  get(name: string): Promise<T> {
    return this.transport.json('GET', objectPath(this.ref, name));
  }

  create(object: T, options: WriteOptions = {}): Promise<T> {
    return this.transport.json('POST', collectionPath(this.ref), { body: object, query: dryRun(options) });
  }

  /**
   * Replaces an object. Its `metadata.version` (or `metadata.resourceVersion`) is the optimistic lock: it must be the
   * stored one, else SvcApiError 409. Read, change, update; on a 409, read again.
   */
  update(object: T, options: WriteOptions = {}): Promise<T> {
    return this.transport.json('PUT', objectPath(this.ref, object.metadata.name), {
      body: object,
      query: dryRun(options),
    });
  }

  /** An RFC 7386 merge patch (`type: 'merge'`, the default) or an RFC 6902 JSON Patch (`type: 'json'`). */
  patch(
    name: string,
    patch: Record<string, unknown> | JsonPatchOperation[],
    options: WriteOptions & { type?: 'merge' | 'json' } = {},
  ): Promise<T> {
    const type = options.type ?? (Array.isArray(patch) ? 'json' : 'merge');
    return this.transport.json('PATCH', objectPath(this.ref, name), {
      body: patch,
      contentType: PATCH_TYPES[type],
      query: dryRun(options),
    });
  }

  /** Marks the object deleted (it goes once its finalizers are empty); `preconditions` make a stale delete a 409. */
  delete(name: string, options: DeleteOptions = {}): Promise<T> {
    const body = options.preconditions
      ? { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: options.preconditions }
      : undefined;
    return this.transport.json('DELETE', objectPath(this.ref, name), { body, query: dryRun(options) });
  }

  /** Deletes every object matching the selectors (all of them when none). */
  deleteCollection(
    options: Pick<ListQuery, 'labelSelector' | 'fieldSelector'> & WriteOptions = {},
  ): Promise<{ deleted: number }> {
    const { labelSelector, fieldSelector } = listQuery(options);
    return this.transport.json('DELETE', collectionPath(this.ref), {
      query: { labelSelector, fieldSelector, ...dryRun(options) },
    });
  }

  /** A watch over HTTP streaming: `for await (const event of resource.watch({ resourceVersion }))`. */
  watch(options: WatchOptions = {}): Watch<T> {
    return new Watch<T>(this.transport, this.ref, options);
  }

  /** The changes after a revision (a page's `metadata.resourceVersion`), resuming its watches; call `start()`. */
  changes(options: ChangeFeedOptions<T>): ChangeFeed<T> {
    return new ChangeFeed<T>(this, options);
  }

  /** A local cache kept up to date by list-then-watch; call `start()` and await `synced`. */
  informer(options: InformerOptions<T> = {}): Informer<T> {
    return new Informer<T>(this, options);
  }
}

function dryRun(options: WriteOptions): { dryRun?: string } {
  return options.dryRun ? { dryRun: 'All' } : {};
}
