import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger as PinoLogger } from 'pino';
import semver from 'semver';
import type { ExtensionObject, Plugin } from '@svc/plugin-api';
import type { DynamicRouter } from '../api/dynamic-router.js';
import type { HttpContext } from '../api/http-context.js';
import { customRoutes } from '../api/custom-routes.js';
import { createExtensionClient } from '../registry/client.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { Actor } from '../registry/admission.js';
import type { ControllerManager } from '../controllers/controller-manager.js';
import { readDeclaredObjects } from './extensions.js';
import { readManifest, type PluginManifest } from './manifest.js';
import { createPluginContext, pluginLogger, type PluginContributions } from './plugin-context.js';

export type PluginPhase = 'RESOLVED' | 'STARTING' | 'STARTED' | 'STOPPING' | 'STOPPED' | 'FAILED';

export interface PluginRecord {
  name: string;
  folder: string;
  manifest: PluginManifest;
  phase: PluginPhase;
  /** Why the plugin FAILED, or undefined. */
  reason?: string;
  startedAt?: string;
}

export const PLUGIN_NAME_LABEL = 'plugin.svc.run/plugin-name';

interface Running {
  instance: Plugin;
  contributions: PluginContributions;
  declared: ExtensionObject[];
}

export interface PluginHostDeps {
  registry: ModelRegistry;
  objects: ObjectService;
  router: DynamicRouter<HttpContext>;
  logger: PinoLogger;
  hostVersion: string;
  startTimeoutMs?: number;
  /** Runs the reconcilers plugins add (none run without it). */
  controllers?: ControllerManager;
}

/**
 * Loads plugins from folders and runs their lifecycle. Start: load the entry fresh, call `start` (which registers
 * models, building their indexes), create the objects of `extensions/`, then mount the routes it added. A failure at any
 * step undoes the earlier ones and leaves the plugin FAILED with the reason; the host and other plugins carry on.
 */
export class PluginHost {
  private readonly records = new Map<string, PluginRecord>();
  private readonly running = new Map<string, Running>();
  private loads = 0;

  constructor(private readonly deps: PluginHostDeps) {}

  list(): PluginRecord[] {
    return [...this.records.values()];
  }

  get(name: string): PluginRecord | undefined {
    return this.records.get(name);
  }

  /** Finds plugin folders (sub-folders with a plugin.yaml) in each directory and starts them in dependency order. */
  async loadDirectories(directories: string[]): Promise<void> {
    for (const directory of directories) {
      for (const entry of (await readdir(directory)).sort()) {
        const folder = path.join(directory, entry);
        const isPlugin = await stat(path.join(folder, 'plugin.yaml')).then(
          (s) => s.isFile(),
          () => false,
        );
        if (!isPlugin) continue;
        try {
          await this.resolve(folder);
        } catch (error) {
          this.deps.logger.error({ folder }, `plugin not loaded: ${(error as Error).message}`);
        }
      }
    }
    for (const name of this.startOrder()) await this.start(name);
  }

  async resolve(folder: string): Promise<PluginRecord> {
    const manifest = await readManifest(folder, this.deps.hostVersion);
    const name = manifest.metadata.name;
    const existing = this.records.get(name);
    if (existing && existing.folder !== folder) {
      throw new Error(`a plugin named "${name}" is already installed from ${existing.folder}`);
    }
    const record: PluginRecord = { name, folder, manifest, phase: 'RESOLVED' };
    this.records.set(name, record);
    return record;
  }

  async start(name: string): Promise<PluginRecord> {
    const record = this.mustGet(name);
    if (record.phase === 'STARTED' || record.phase === 'STARTING') return record;
    const missing = this.unmetDependencies(record);
    if (missing.length > 0) return this.fail(record, `required plugins are not started: ${missing.join(', ')}`);
    record.phase = 'STARTING';
    delete record.reason;
    const contributions: PluginContributions = { models: [], routes: [], reconcilers: [] };
    const logger = pluginLogger(this.deps.logger, name);
    let instance: Plugin | undefined;
    const declared: ExtensionObject[] = [];
    try {
      instance = await this.loadEntry(record);
      const client = createExtensionClient(this.deps.registry, this.deps.objects, { actor: pluginActor(name) });
      const context = createPluginContext(name, { registry: this.deps.registry, client, logger }, contributions);
      await withTimeout(Promise.resolve(instance.start(context)), this.deps.startTimeoutMs ?? 30_000, name);
      for (const { source, object } of await readDeclaredObjects(record.folder)) {
        declared.push(await this.applyDeclared(name, source, object));
      }
      this.deps.router.add(contributions.routes.flatMap((route) => customRoutes(`plugin:${name}`, route)));
      for (const reconciler of contributions.reconcilers) {
        this.deps.controllers?.add(`plugin:${name}`, reconciler, { client, logger });
      }
    } catch (error) {
      await this.undo(name, { instance, contributions, declared }, false);
      return this.fail(record, (error as Error).message);
    }
    this.running.set(name, { instance, contributions, declared });
    record.phase = 'STARTED';
    record.startedAt = new Date().toISOString();
    logger.info(`started (${contributions.models.length} models, ${contributions.routes.length} routes)`);
    return record;
  }

  /** Stops a plugin: its routes answer 404 at once, its declared objects are removed, its models unregistered. */
  async stop(name: string): Promise<PluginRecord> {
    const record = this.mustGet(name);
    const running = this.running.get(name);
    if (!running) return record;
    const dependents = this.list().filter(
      (r) => r.phase === 'STARTED' && r.manifest.spec.pluginDependencies?.[name] !== undefined,
    );
    if (dependents.length > 0) {
      throw new Error(`plugin "${name}" is required by running plugins: ${dependents.map((d) => d.name).join(', ')}`);
    }
    record.phase = 'STOPPING';
    this.running.delete(name);
    await this.undo(name, running, true);
    record.phase = 'STOPPED';
    return record;
  }

  /** Stops running plugins for process shutdown: routes and models go, stored objects stay. */
  async shutdown(): Promise<void> {
    for (const name of [...this.startOrder()].reverse()) {
      const running = this.running.get(name);
      if (!running) continue;
      this.running.delete(name);
      await this.undo(name, { ...running, declared: [] }, true);
    }
  }

  private async undo(name: string, running: Partial<Running> & { contributions: PluginContributions; declared: ExtensionObject[] }, callStop: boolean) {
    this.deps.router.removeOwner(`plugin:${name}`);
    const client = createExtensionClient(this.deps.registry, this.deps.objects, { actor: pluginActor(name) });
    for (const object of [...running.declared].reverse()) {
      await client.delete(object, object.metadata.name).catch(() => undefined);
    }
    await this.deps.controllers?.removeOwner(`plugin:${name}`);
    if (callStop && running.instance?.stop) {
      const logger = pluginLogger(this.deps.logger, name);
      const context = createPluginContext(name, { registry: this.deps.registry, client, logger }, running.contributions);
      await Promise.resolve(running.instance.stop(context)).catch((error: unknown) =>
        logger.error(`stop failed: ${(error as Error).message}`),
      );
    }
    for (const served of running.contributions.models) this.deps.registry.unregister(served);
  }

  /** Creates a declared object, or updates it when it exists and differs; returns it as stored. */
  private async applyDeclared(plugin: string, source: string, declared: ExtensionObject): Promise<ExtensionObject> {
    const object: ExtensionObject = {
      ...declared,
      metadata: { ...declared.metadata, labels: { ...declared.metadata?.labels, [PLUGIN_NAME_LABEL]: plugin } },
    };
    const client = createExtensionClient(this.deps.registry, this.deps.objects, {
      allowUnprefixedLabels: false,
      actor: pluginActor(plugin),
    });
    try {
      const existing = await client.fetch(object, object.metadata.name);
      if (!existing) return await client.create(object);
      if (sameDeclaredContent(existing, object)) return existing;
      return await client.update({ ...object, metadata: { ...object.metadata, version: existing.metadata.version } });
    } catch (error) {
      throw new Error(`${source} (${object.kind} "${object.metadata?.name}"): ${(error as Error).message}`);
    }
  }

  private async loadEntry(record: PluginRecord): Promise<Plugin> {
    const entry = path.resolve(record.folder, record.manifest.spec.main);
    // A fresh URL per load, so a restarted or upgraded plugin runs the code now on disk.
    const module = (await import(`${pathToFileURL(entry).href}?load=${++this.loads}`)) as { default?: Plugin };
    const plugin = module.default;
    if (!plugin || typeof plugin.start !== 'function') {
      throw new Error(`${record.manifest.spec.main} has no default export with a start function (use definePlugin)`);
    }
    return plugin;
  }

  private unmetDependencies(record: PluginRecord): string[] {
    return Object.entries(record.manifest.spec.pluginDependencies ?? {})
      .filter(([dep, range]) => {
        const other = this.records.get(dep);
        return !other || other.phase !== 'STARTED' || !semver.satisfies(other.manifest.spec.version, range);
      })
      .map(([dep, range]) => `${dep}@${range}`);
  }

  /** Names in an order where every plugin comes after the plugins it requires (cycles keep their name order). */
  private startOrder(): string[] {
    const order: string[] = [];
    const visiting = new Set<string>();
    const visit = (name: string) => {
      if (order.includes(name) || visiting.has(name)) return;
      visiting.add(name);
      for (const dep of Object.keys(this.records.get(name)?.manifest.spec.pluginDependencies ?? {})) {
        if (this.records.has(dep)) visit(dep);
      }
      order.push(name);
    };
    for (const name of [...this.records.keys()].sort()) visit(name);
    return order;
  }

  private fail(record: PluginRecord, reason: string): PluginRecord {
    record.phase = 'FAILED';
    record.reason = reason;
    this.deps.logger.error({ plugin: record.name }, `plugin failed to start: ${reason}`);
    return record;
  }

  private mustGet(name: string): PluginRecord {
    const record = this.records.get(name);
    if (!record) throw new Error(`no plugin named "${name}" is installed`);
    return record;
  }
}

function pluginActor(plugin: string): Actor {
  return { kind: 'plugin', plugin };
}

function sameDeclaredContent(existing: ExtensionObject, declared: ExtensionObject): boolean {
  const strip = ({ metadata, status: _status, ...rest }: ExtensionObject) => ({
    ...rest,
    labels: metadata.labels ?? {},
    annotations: metadata.annotations ?? {},
    finalizers: metadata.finalizers ?? [],
  });
  return JSON.stringify(strip(existing)) === JSON.stringify(strip(declared));
}

async function withTimeout<T>(promise: Promise<T>, ms: number, plugin: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`start of plugin "${plugin}" did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
