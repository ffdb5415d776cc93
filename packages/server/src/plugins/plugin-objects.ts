import { isDeepStrictEqual } from 'node:util';
import {
  KIND,
  notFound,
  PLUGIN_API_VERSION,
  type PluginStatus,
  START_REQUEST_ANNOTATION,
  UNINSTALL_FINALIZER,
} from '@svc/plugin-api';
import { type Actor, SYSTEM } from '../registry/admission.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { PluginRecord } from './plugin-host.js';
import { specOf } from './plugin-model.js';
import { type PluginObject, readPluginObject } from './plugin-object.js';

/**
 * The Plugin objects, read and written through the object service (so admission and watches see every change) and
 * handed out as typed views. Spec follows the plugin's manifest and the archive its code came from, plus the caller's
 * `enabled`; what status to write is plugin-status.ts's to say.
 */
export class PluginObjects {
  constructor(
    private readonly objects: ObjectService,
    readonly served: ServedModel,
  ) {}

  /** The Plugin object named `name`, or undefined when there is none. */
  async fetch(name: string): Promise<PluginObject | undefined> {
    const object = await this.objects.find(this.served, name);
    return object && readPluginObject(object);
  }

  async get(name: string): Promise<PluginObject> {
    const object = await this.fetch(name);
    if (!object) throw notFound(`plugin "${name}" is not installed`);
    return object;
  }

  /**
   * Creates the Plugin object of code just resolved, with the status this server reports of it: one write, where a
   * create and then a first report would be two.
   */
  async create(record: PluginRecord, enabled: boolean, status: PluginStatus): Promise<PluginObject> {
    const object: PluginObject = {
      apiVersion: PLUGIN_API_VERSION,
      kind: KIND.Plugin,
      metadata: { name: record.name, finalizers: [UNINSTALL_FINALIZER] },
      spec: specOf(record.manifest, enabled, record.digest),
      status,
    };
    const written = await this.objects.create(this.served, object, { actor: SYSTEM, withStatus: true });
    return readPluginObject(written.object);
  }

  /**
   * Brings the spec in line with the code (its manifest and archive), keeping `enabled`, and with `requestStart` asks
   * for a start of that code (START_REQUEST_ANNOTATION); answers the object as stored.
   */
  async updateSpec(
    existing: PluginObject,
    record: PluginRecord,
    options: { requestStart?: boolean } = {},
  ): Promise<PluginObject> {
    if (
      !options.requestStart &&
      isDeepStrictEqual(existing.spec, specOf(record.manifest, existing.spec.enabled, record.digest))
    ) {
      return existing;
    }
    const written = await this.objects.patch(
      this.served,
      record.name,
      (current) => {
        const plugin = readPluginObject(current);
        const spec = specOf(record.manifest, plugin.spec.enabled, record.digest);
        return options.requestStart ? withStartRequest({ ...plugin, spec }) : { ...plugin, spec };
      },
      { actor: SYSTEM },
    );
    return readPluginObject(written.object);
  }

  /** Sets `spec.enabled` as `actor` (an ordinary update, checked by admission); answers the object as stored. */
  async setEnabled(name: string, enabled: boolean, actor: Actor): Promise<PluginObject> {
    // Read-modify-write under the object's lock: a status write landing meanwhile is not a conflict for the caller.
    const written = await this.objects.patch(
      this.served,
      name,
      (current) => ({ ...current, spec: { ...current.spec, enabled } }),
      { actor },
    );
    return readPluginObject(written.object);
  }

  /** Asks for another start (START_REQUEST_ANNOTATION) as `actor`, checked by admission as enabling is. */
  async requestStart(name: string, actor: Actor): Promise<PluginObject> {
    const written = await this.objects.patch(this.served, name, (current) => withStartRequest(current), { actor });
    return readPluginObject(written.object);
  }

  /** Lets a deleted Plugin object go, once its plugin is stopped and its code removed. */
  async releaseUninstallFinalizer(name: string): Promise<void> {
    await this.objects.patch(
      this.served,
      name,
      (current) => ({
        ...current,
        metadata: {
          ...current.metadata,
          finalizers: (current.metadata.finalizers ?? []).filter((f) => f !== UNINSTALL_FINALIZER),
        },
      }),
      { actor: SYSTEM },
    );
  }

  /** Writes `status` through the status subresource over `object`'s version; returns the object as stored. */
  async updateStatus(object: PluginObject, status: PluginStatus): Promise<PluginObject> {
    const written = await this.objects.update(
      this.served,
      object.metadata.name,
      { ...object, status },
      {
        subresource: 'status',
        actor: SYSTEM,
      },
    );
    return readPluginObject(written.object);
  }
}

/** `object` asking for another start: the annotation holds the time of the request. */
function withStartRequest<T extends { metadata: { annotations?: Record<string, string> } }>(object: T): T {
  const annotations = { ...object.metadata.annotations, [START_REQUEST_ANNOTATION]: new Date().toISOString() };
  return { ...object, metadata: { ...object.metadata, annotations } };
}
