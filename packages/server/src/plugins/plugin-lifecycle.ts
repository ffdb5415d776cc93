import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Logger as PinoLogger } from 'pino';
import semver from 'semver';
import { alreadyExists, badRequest, conflict, forbidden, invalid, isApiError, methodNotAllowed, notFound } from '@svc/plugin-api';
import type { ControllerManager } from '../controllers/controller-manager.js';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import { SYSTEM, type Actor, type AdmissionRequest } from '../registry/admission.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { selectionOf } from '../watch/selection.js';
import { ArchiveError } from './archive.js';
import type { InstalledCode, StagedCode } from './installed-code.js';
import { ManifestError, readManifest, type PluginManifest } from './manifest.js';
import { pluginLogger } from './plugin-context.js';
import type { PluginHost, PluginRecord } from './plugin-host.js';
import {
  nextStatus,
  pluginModel,
  specOf,
  UNINSTALL_FINALIZER,
  type PluginObject,
  type PluginSpec,
  type PluginStatus,
} from './plugin-model.js';

/** The archive a plugin was installed from, so a boot that finds the same archive in SVC_PLUGINS_DIR does nothing. */
export const ARCHIVE_DIGEST_ANNOTATION = 'plugin.svc.run/archive-digest';

export interface PluginLifecycleDeps {
  host: PluginHost;
  registry: ModelRegistry;
  objects: ObjectService;
  controllers: ControllerManager;
  installed: InstalledCode;
  logger: PinoLogger;
  hostVersion: string;
}

/**
 * The plugin lifecycle controller. Each installed plugin is a Plugin object; `spec.enabled` is the desired state and
 * `status` records what this server runs. `sync` is level-based (it compares the object with the host and acts), runs
 * one at a time, and is called by the reconciler on every change of a Plugin object, at boot, and by the management
 * API when a caller wants to wait for the outcome.
 */
export class PluginLifecycle {
  private served!: ServedModel;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: PluginLifecycleDeps) {}

  get model(): ServedModel {
    return this.served;
  }

  /** Registers the Plugin model, installs, resolves and starts what is found, then follows Plugin objects. */
  async boot(directories: string[]): Promise<void> {
    const { registry, objects, host } = this.deps;
    this.served = await registry.register(normalizeModelDefinition(pluginModel, { kind: 'system' }), 'core');
    objects.admission.add(this.served.model.resource, (request) => this.admit(request));
    for (const folder of await this.deps.installed.folders()) await this.discover(() => host.resolve(folder, 'archive'), folder);
    for (const directory of directories) {
      for (const entry of (await readdir(directory)).sort()) {
        const file = path.join(directory, entry);
        if (/\.(tgz|zip)$/i.test(entry) && (await isFile(file))) await this.discover(() => this.installAtBoot(file), file);
        else if (await isFile(path.join(file, 'plugin.yaml'))) await this.discover(() => host.resolve(file, 'directory'), file);
      }
    }
    for (const record of host.list()) await this.ensureObject(record);
    for (const name of host.startOrder()) await this.sync(name);
    // Plugin objects whose code is not on this server still get a status saying so (names from the index: no reads).
    for (const name of this.served.index.names()) {
      if (!host.get(name)) await this.sync(name);
    }
    this.deps.controllers.run(
      'core',
      {
        name: 'plugin-lifecycle',
        served: this.served,
        selection: selectionOf(this.served.index, [], []),
        workers: 1,
        reconcile: async ({ name }) => void (await this.sync(name)),
      },
      pluginLogger(this.deps.logger, 'core'),
    );
  }

  /** Brings plugin `name` to its desired state and returns its object (undefined once uninstalled). */
  sync(name: string, options: { retry?: boolean } = {}): Promise<PluginObject | undefined> {
    return this.exclusive(() => this.syncNow(name, options));
  }

  async get(name: string): Promise<PluginObject> {
    const object = await this.fetch(name);
    if (!object) throw notFound(`plugin "${name}" is not installed`);
    return object;
  }

  /** Installs an uploaded archive: checked, unpacked, recorded as a Plugin object; not started. */
  async install(archive: Buffer): Promise<PluginObject> {
    const staged = await this.stage(archive);
    try {
      const manifest = await this.manifestOf(staged);
      const name = manifest.metadata.name;
      return await this.exclusive(async () => {
        if (this.deps.host.get(name) || (await this.fetch(name))) {
          throw alreadyExists(`plugin "${name}" is already installed; upgrade it with POST …/plugins/${name}/upgrade`);
        }
        this.checkDependenciesInstalled(manifest);
        const record = await this.deps.host.resolve(await this.deps.installed.place(name, staged), 'archive');
        await this.ensureObject(record, { digest: staged.digest });
        return (await this.syncNow(name, {}))!;
      });
    } finally {
      await staged.discard();
    }
  }

  /** Replaces a plugin's code with an uploaded archive and restarts it if it should run; its data stays. */
  async upgrade(name: string, archive: Buffer): Promise<PluginObject> {
    const staged = await this.stage(archive);
    try {
      const manifest = await this.manifestOf(staged);
      if (manifest.metadata.name !== name) {
        throw badRequest(`the archive holds plugin "${manifest.metadata.name}", not "${name}"`);
      }
      return await this.exclusive(async () => {
        await this.get(name);
        const record = this.deps.host.get(name);
        if (record?.source === 'directory') {
          throw conflict(`plugin "${name}" is loaded from a folder of SVC_PLUGINS_DIR; change the code there and restart`);
        }
        this.checkDependenciesInstalled(manifest);
        for (const dependent of this.deps.host.runningDependents(name)) {
          const range = this.deps.host.get(dependent)!.manifest.spec.pluginDependencies![name]!;
          if (!semver.satisfies(manifest.spec.version, range)) {
            throw conflict(`running plugin "${dependent}" requires ${name}@${range}, which ${manifest.spec.version} is not`);
          }
        }
        if (record && record.phase !== 'STOPPED') await this.deps.host.stop(name, { restarting: true });
        const upgraded = await this.deps.host.resolve(await this.deps.installed.place(name, staged), 'archive');
        await this.ensureObject(upgraded, { digest: staged.digest });
        return (await this.syncNow(name, { retry: true }))!;
      });
    } finally {
      await staged.discard();
    }
  }

  /** Sets `spec.enabled` (an ordinary update, checked by admission) and, unless `wait` is false, waits for the result. */
  async setEnabled(name: string, enabled: boolean, actor: Actor, wait: boolean): Promise<PluginObject> {
    const object = await this.get(name);
    if (object.spec.enabled !== enabled) {
      // Read-modify-write under the object's lock: a status write landing meanwhile is not a conflict for the caller.
      await this.deps.objects.patch(this.served, name, (current) => ({ ...current, spec: { ...current.spec, enabled } }), { actor });
    }
    const outcome = this.sync(name, { retry: enabled });
    if (!wait) {
      outcome.catch((error: unknown) => this.deps.logger.error({ plugin: name, err: error }, 'plugin state change failed'));
      return this.get(name);
    }
    return (await outcome) ?? this.get(name);
  }

  private async syncNow(name: string, { retry = false }: { retry?: boolean }): Promise<PluginObject | undefined> {
    const { host } = this.deps;
    const object = await this.fetch(name);
    const record = host.get(name);
    if (!object) {
      if (record) {
        await host.stop(name, { restarting: true });
        if (record.source === 'archive') await this.deps.installed.remove(name);
        host.forget(name);
      }
      return undefined;
    }
    if (object.metadata.deletionTimestamp) return this.uninstall(object, record);
    if (!record) {
      return this.writeStatus(object, nextStatus(object.status, 'FAILED', {
        status: 'False',
        reason: 'CodeMissing',
        message: `the code of plugin "${name}" is not on this server`,
      }));
    }
    let current = object;
    if (object.spec.enabled) {
      const shouldStart = record.phase === 'RESOLVED' || record.phase === 'STOPPED' || (record.phase === 'FAILED' && retry);
      if (shouldStart) {
        current = await this.writeStatus(object, nextStatus(object.status, 'STARTING', {
          status: 'Unknown',
          reason: 'Starting',
          message: 'loading the code, registering models and building their indexes',
        }));
        await host.start(name);
        if (record.phase === 'STARTED') this.retryWaitingDependents(name);
      }
    } else if (record.phase === 'STARTED' || record.phase === 'FAILED') {
      await host.stop(name);
    }
    return this.writeStatus(current, statusOf(record, object.spec.enabled, current.status));
  }

  /** The finalizer's work: stop the plugin, remove its code (if installed from an archive), let the object go. */
  private async uninstall(object: PluginObject, record: PluginRecord | undefined): Promise<undefined> {
    const name = object.metadata.name;
    if (record) {
      await this.deps.host.stop(name);
      if (record.source === 'archive') await this.deps.installed.remove(name);
      this.deps.host.forget(name);
    }
    if (object.metadata.finalizers?.includes(UNINSTALL_FINALIZER)) {
      await this.deps.objects.patch(
        this.served,
        name,
        (current) => ({
          ...current,
          metadata: { ...current.metadata, finalizers: (current.metadata.finalizers ?? []).filter((f) => f !== UNINSTALL_FINALIZER) },
        }),
        { actor: SYSTEM },
      );
    }
    this.deps.logger.info({ plugin: name }, 'plugin uninstalled');
    return undefined;
  }

  /** Plugins that failed only because `name` was not running get another try now that it is. */
  private retryWaitingDependents(name: string): void {
    for (const other of this.deps.host.list()) {
      if (other.failure === 'DependenciesNotMet' && other.manifest.spec.pluginDependencies?.[name] !== undefined) {
        void this.sync(other.name, { retry: true }).catch((error: unknown) =>
          this.deps.logger.error({ plugin: other.name, err: error }, 'starting a waiting plugin failed'),
        );
      }
    }
  }

  /** Creates the Plugin object of a resolved plugin, or brings its spec in line with the manifest (keeping `enabled`). */
  private async ensureObject(record: PluginRecord, options: { digest?: string; enabled?: boolean } = {}): Promise<void> {
    const existing = await this.fetch(record.name);
    const annotations: Record<string, string> = options.digest ? { [ARCHIVE_DIGEST_ANNOTATION]: options.digest } : {};
    if (!existing) {
      const object: PluginObject = {
        apiVersion: 'plugin.svc.run/v1alpha1',
        kind: 'Plugin',
        metadata: { name: record.name, finalizers: [UNINSTALL_FINALIZER], annotations },
        // A folder of SVC_PLUGINS_DIR runs at first sight; an uploaded archive waits to be enabled.
        spec: specOf(record.manifest, options.enabled ?? record.source === 'directory'),
      };
      await this.deps.objects.create(this.served, object, { actor: SYSTEM });
      return;
    }
    const spec = specOf(record.manifest, existing.spec.enabled);
    const merged = { ...existing.metadata.annotations, ...annotations };
    if (isDeepStrictEqual(existing.spec, spec) && isDeepStrictEqual(existing.metadata.annotations ?? {}, merged)) return;
    await this.deps.objects.update(
      this.served,
      record.name,
      { ...existing, metadata: { ...existing.metadata, annotations: merged }, spec },
      { actor: SYSTEM },
    );
  }

  /** Writes status when it changed, on the freshest version of the object; returns the object as stored. */
  private async writeStatus(object: PluginObject, status: PluginStatus): Promise<PluginObject> {
    let current = object;
    for (let attempt = 0; ; attempt++) {
      if (isDeepStrictEqual(current.status, status)) return current;
      try {
        const written = await this.deps.objects.update(this.served, current.metadata.name, { ...current, status }, {
          subresource: 'status',
          actor: SYSTEM,
        });
        return written.object as unknown as PluginObject;
      } catch (error) {
        if (!isApiError(error) || error.status !== 409 || attempt >= 3) throw error;
        current = (await this.fetch(current.metadata.name)) ?? current;
      }
    }
  }

  /** Who may change a Plugin object, and how: only `spec.enabled` and metadata are the caller's to change. */
  private admit(request: AdmissionRequest): void {
    if (request.actor.kind === 'system') return;
    const name = request.object.metadata.name;
    if (request.operation === 'create') {
      throw methodNotAllowed('plugins are installed with POST /apis/api.console.svc.run/v1alpha1/plugins/install (multipart field "file")');
    }
    if (request.subresource === 'status') throw forbidden(`the status of plugin "${name}" is written by svc alone`);
    const dependents = this.deps.host.runningDependents(name);
    if (request.operation === 'delete') {
      if (dependents.length > 0) throw conflict(`plugin "${name}" is required by running plugins: ${dependents.join(', ')}; stop them first`);
      return;
    }
    if (
      request.prevObject?.metadata.finalizers?.includes(UNINSTALL_FINALIZER) &&
      !request.object.metadata.finalizers?.includes(UNINSTALL_FINALIZER)
    ) {
      throw invalid(`plugin "${name}": the ${UNINSTALL_FINALIZER} finalizer is removed by svc once the plugin is uninstalled`);
    }
    const before = (request.prevObject as unknown as PluginObject).spec;
    const after = (request.object as unknown as PluginObject).spec;
    const changed = Object.keys({ ...before, ...after }).filter(
      (key) => key !== 'enabled' && !isDeepStrictEqual(before[key as keyof PluginSpec], after[key as keyof PluginSpec]),
    );
    if (changed.length > 0) {
      throw invalid(
        `plugin "${name}": ${changed.map((k) => `spec.${k}`).join(', ')} come from its plugin.yaml; upgrade the plugin to change them`,
        changed.map((k) => ({ path: `/spec/${k}`, message: 'is set from plugin.yaml' })),
      );
    }
    if (before.enabled && !after.enabled && dependents.length > 0) {
      throw conflict(`plugin "${name}" is required by running plugins: ${dependents.join(', ')}; stop them first`);
    }
  }

  private checkDependenciesInstalled(manifest: PluginManifest): void {
    const missing = this.deps.host.unmetDependencies(manifest, { installedOnly: true });
    if (missing.length > 0) {
      throw conflict(
        `plugin "${manifest.metadata.name}" requires ${missing.join(', ')}, not installed; install ${missing.length > 1 ? 'them' : 'it'} first`,
      );
    }
  }

  /** An archive in SVC_PLUGINS_DIR: installed (or upgraded) unless the same archive already is. */
  private async installAtBoot(file: string): Promise<PluginRecord> {
    const staged = await this.stage(await readFile(file));
    try {
      const manifest = await this.manifestOf(staged);
      const name = manifest.metadata.name;
      const known = this.deps.host.get(name);
      if (known?.source === 'directory') throw new Error(`a plugin named "${name}" is already loaded from ${known.folder}`);
      const object = await this.fetch(name);
      if (known && object?.metadata.annotations?.[ARCHIVE_DIGEST_ANNOTATION] === staged.digest) return known;
      const record = await this.deps.host.resolve(await this.deps.installed.place(name, staged), 'archive');
      // First sight of an archive dropped into SVC_PLUGINS_DIR: it runs, like a folder there.
      await this.ensureObject(record, { digest: staged.digest, enabled: true });
      return record;
    } finally {
      await staged.discard();
    }
  }

  private async discover(resolve: () => Promise<PluginRecord>, where: string): Promise<void> {
    try {
      await resolve();
    } catch (error) {
      this.deps.logger.error({ source: where }, `plugin not loaded: ${(error as Error).message}`);
    }
  }

  private async stage(archive: Buffer): Promise<StagedCode> {
    try {
      return await this.deps.installed.stage(archive);
    } catch (error) {
      if (error instanceof ArchiveError) throw badRequest(`the plugin archive was refused: ${error.message}`);
      throw error;
    }
  }

  private async manifestOf(staged: StagedCode): Promise<PluginManifest> {
    try {
      return await readManifest(staged.root, this.deps.hostVersion);
    } catch (error) {
      // The staging path means nothing to the caller; the file inside the archive does.
      if (error instanceof ManifestError) throw badRequest(error.message.replace(error.where, 'plugin.yaml'));
      throw error;
    }
  }

  private async fetch(name: string): Promise<PluginObject | undefined> {
    return (await this.deps.objects.get(this.served, name).catch((error: unknown) => {
      if (isApiError(error) && error.status === 404) return undefined;
      throw error;
    })) as unknown as PluginObject | undefined;
  }

  /** Lifecycle operations run one at a time: dependency checks and folder swaps never interleave. */
  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.tail.then(operation);
    this.tail = run.catch(() => undefined);
    return run;
  }
}

function statusOf(record: PluginRecord, enabled: boolean, previous: PluginStatus | undefined): PluginStatus {
  const extra: Partial<PluginStatus> = { loadLocation: record.folder, source: record.source };
  switch (record.phase) {
    case 'STARTED':
      return nextStatus(previous, 'STARTED', { status: 'True', reason: 'Started', message: 'the plugin is running' }, {
        ...extra,
        lastStartTime: record.startedAt,
      });
    case 'FAILED':
      return nextStatus(previous, 'FAILED', { status: 'False', reason: record.failure ?? 'StartFailed', message: record.reason ?? '' }, extra);
    case 'STOPPED':
      return nextStatus(
        previous,
        'STOPPED',
        enabled
          ? { status: 'False', reason: 'Stopped', message: 'the plugin is stopped' }
          : { status: 'False', reason: 'Disabled', message: 'the plugin is disabled' },
        extra,
      );
    default:
      return nextStatus(previous, record.phase, { status: 'False', reason: 'Installed', message: 'installed, not started' }, extra);
  }
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}
