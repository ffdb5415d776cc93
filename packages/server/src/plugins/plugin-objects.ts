import { isDeepStrictEqual } from 'node:util';
import { notFound } from '@svc/plugin-api';
import { type Actor, SYSTEM } from '../registry/admission.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { PluginRecord } from './plugin-host.js';
import {
  ARCHIVE_DIGEST_ANNOTATION,
  PLUGIN_API_VERSION,
  type PluginStatus,
  specOf,
  UNINSTALL_FINALIZER,
} from './plugin-model.js';
import { type PluginObject, readPluginObject } from './plugin-object.js';

/**
 * The Plugin objects, read and written through the object service (so admission and watches see every change) and
 * handed out as typed views. Spec follows the plugin's manifest plus the caller's `enabled`; what status to write is
 * plugin-status.ts's to say.
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

  /** Creates the Plugin object of a resolved plugin, or brings its spec in line with the manifest (keeping `enabled`). */
  async ensure(record: PluginRecord, options: { digest?: string; enabled?: boolean } = {}): Promise<void> {
    const existing = await this.fetch(record.name);
    const annotations: Record<string, string> = options.digest ? { [ARCHIVE_DIGEST_ANNOTATION]: options.digest } : {};
    if (!existing) {
      const object: PluginObject = {
        apiVersion: PLUGIN_API_VERSION,
        kind: 'Plugin',
        metadata: { name: record.name, finalizers: [UNINSTALL_FINALIZER], annotations },
        // A folder of SVC_PLUGINS_DIR runs at first sight; an uploaded archive waits to be enabled.
        spec: specOf(record.manifest, options.enabled ?? record.source === 'directory'),
      };
      await this.objects.create(this.served, object, { actor: SYSTEM });
      return;
    }
    const spec = specOf(record.manifest, existing.spec.enabled);
    const merged = { ...existing.metadata.annotations, ...annotations };
    if (isDeepStrictEqual(existing.spec, spec) && isDeepStrictEqual(existing.metadata.annotations ?? {}, merged))
      return;
    await this.objects.update(
      this.served,
      record.name,
      { ...existing, metadata: { ...existing.metadata, annotations: merged }, spec },
      { actor: SYSTEM },
    );
  }

  /** Sets `spec.enabled` as `actor` (an ordinary update, checked by admission). */
  async setEnabled(name: string, enabled: boolean, actor: Actor): Promise<void> {
    // Read-modify-write under the object's lock: a status write landing meanwhile is not a conflict for the caller.
    await this.objects.patch(this.served, name, (current) => ({ ...current, spec: { ...current.spec, enabled } }), {
      actor,
    });
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
