/**
 * What the object service's unit tests share: a real store (SQLite in memory, the store every store suite runs
 * against), a registry with two models, a clock the test moves, and a way to read which error a write ended in.
 */
import { type ExtensionObject, isApiError, type ModelDefinition } from '@svc/plugin-api';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import { openSqliteStore } from '../store/sqlite.js';
import type { Store } from '../store/types.js';
import { ModelRegistry, type ServedModel } from './model-registry.js';
import { ObjectService } from './object-service.js';

/** With a status subresource and a unique index. */
const widgetModel: ModelDefinition = {
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  statusSubresource: true,
  schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { size: { type: 'integer' }, sku: { type: 'string' } } },
      status: { type: 'object' },
    },
  },
  indexes: [{ name: 'spec.sku', unique: true }],
};

/** Without a status subresource: status is written like any field. */
const noteModel: ModelDefinition = { group: 'example.com', version: 'v1', kind: 'Note', plural: 'notes' };

/** A model whose controller holds every object from its create (ModelDefinition.finalizers). */
export const COURIER_FINALIZER = 'example.com/courier';
const parcelModel: ModelDefinition = {
  group: 'example.com',
  version: 'v1',
  kind: 'Parcel',
  plural: 'parcels',
  finalizers: [COURIER_FINALIZER],
};

export const START = new Date('2024-03-01T12:00:00.000Z');

export interface Fixture {
  store: Store;
  service: ObjectService;
  widgets: ServedModel;
  notes: ServedModel;
  parcels: ServedModel;
  /** Moves the service's clock on. */
  advance(ms: number): void;
  /** What commit listeners threw. */
  listenerErrors: unknown[];
  close(): Promise<void>;
}

export async function openFixture(): Promise<Fixture> {
  const store = openSqliteStore({ path: ':memory:' });
  const registry = new ModelRegistry(store);
  const widgets = await registry.register(normalizeModelDefinition(widgetModel, { kind: 'system' }), 'core');
  const notes = await registry.register(normalizeModelDefinition(noteModel, { kind: 'system' }), 'core');
  const parcels = await registry.register(normalizeModelDefinition(parcelModel, { kind: 'system' }), 'core');
  let now = START.getTime();
  const listenerErrors: unknown[] = [];
  const service = new ObjectService(
    store,
    (error) => listenerErrors.push(error),
    () => new Date(now),
  );
  return {
    store,
    service,
    widgets,
    notes,
    parcels,
    advance: (ms) => void (now += ms),
    listenerErrors,
    close: () => store.close(),
  };
}

/**
 * Another writer on the fixture's store, as a second replica would be: its own registry, indexes and object service
 * (with no change feed between them, so each sees the other's writes only in the store).
 */
export async function openSecondWriter(f: Fixture): Promise<{ service: ObjectService; widgets: ServedModel }> {
  const registry = new ModelRegistry(f.store);
  const widgets = await registry.register(normalizeModelDefinition(widgetModel, { kind: 'system' }), 'core');
  return { service: new ObjectService(f.store), widgets };
}

export function widget(
  name: string,
  spec: Record<string, unknown> = {},
  metadata: Partial<ExtensionObject['metadata']> = {},
) {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name, ...metadata },
    spec,
  } satisfies ExtensionObject;
}

export function note(name: string, fields: Record<string, unknown> = {}) {
  return { apiVersion: 'example.com/v1', kind: 'Note', metadata: { name }, ...fields } satisfies ExtensionObject;
}

export function parcel(name: string, metadata: Partial<ExtensionObject['metadata']> = {}) {
  return { apiVersion: 'example.com/v1', kind: 'Parcel', metadata: { name, ...metadata } } satisfies ExtensionObject;
}

/**
 * The reason of the ApiError a write ended in, or 'ok'; anything else is rethrown. A thunk, because create and update
 * refuse an invalid body by throwing before they return a promise.
 */
export async function reasonOf(write: () => Promise<unknown>): Promise<string> {
  try {
    await write();
    return 'ok';
  } catch (error) {
    if (isApiError(error)) return error.reason;
    throw error;
  }
}
