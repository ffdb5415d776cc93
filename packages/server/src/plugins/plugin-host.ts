import path from 'node:path';
import type { Logger as PinoLogger } from 'pino';
import semver from 'semver';
import type { ExtensionClient, ExtensionObject, Plugin } from '@svc/plugin-api';
import type { DynamicRouter } from '../api/dynamic-router.js';
import type { HttpContext } from '../api/http-context.js';
import { customRoutes, groupOf } from '../api/custom-routes.js';
import { createExtensionClient } from '../registry/client.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { Actor } from '../registry/admission.js';
import type { ControllerManager } from '../controllers/controller-manager.js';
import { ROLE_TEMPLATE_LABEL } from '../authz/roles.js';
import { pluginServiceGroups } from '../objects/domains.js';
import { describeOwner, ownerOf } from '../objects/ownership.js';
import { inDependencyOrder, readDeclaredObjects } from './extensions.js';
import { readManifest, type PluginManifest } from './manifest.js';
import { codeFingerprint, importPluginEntry } from './module-loader.js';
import { createPluginContext, type PluginContributions } from './plugin-context.js';
import { PluginLogs } from './plugin-logs.js';
import { PLUGIN_NAME_LABEL, type PluginPhase } from './plugin-model.js';

export { PLUGIN_NAME_LABEL, type PluginPhase } from './plugin-model.js';

export interface PluginRecord {
  name: string;
  folder: string;
  /** `directory`: loaded in place from SVC_PLUGINS_DIR; `archive`: installed into the data folder. */
  source: 'directory' | 'archive';
  manifest: PluginManifest;
  phase: PluginPhase;
  /** Why the plugin FAILED, or undefined. */
  reason?: string;
  /** Machine-readable cause of a failure: StartFailed, DependenciesNotMet. */
  failure?: 'StartFailed' | 'DependenciesNotMet';
  startedAt?: string;
}

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
 * Runs plugins in this process. Start: load the entry (fresh when its code changed), call `start` (which registers
 * models, building their indexes), create the objects of `extensions/`, then mount the routes and start the reconcilers
 * it added. A failure at any step undoes the earlier ones and leaves the plugin FAILED with the reason; the host and
 * other plugins carry on. Stop is the reverse. This class knows nothing of Plugin objects: the lifecycle controller
 * (plugin-lifecycle.ts) decides what should run and records what does.
 */
export class PluginHost {
  private readonly records = new Map<string, PluginRecord>();
  private readonly running = new Map<string, Running>();
  /** What a plugin registered while it starts, before it runs: the groups it owns are known from `start` on. */
  private readonly starting = new Map<string, PluginContributions>();
  readonly logs: PluginLogs;

  constructor(private readonly deps: PluginHostDeps) {
    this.logs = new PluginLogs(deps.logger);
  }

  list(): PluginRecord[] {
    return [...this.records.values()];
  }

  get(name: string): PluginRecord | undefined {
    return this.records.get(name);
  }

  /** Reads a plugin folder's manifest and records it (RESOLVED). A name already taken by another folder is refused. */
  async resolve(folder: string, source: PluginRecord['source']): Promise<PluginRecord> {
    const manifest = await readManifest(folder, this.deps.hostVersion);
    const name = manifest.metadata.name;
    const existing = this.records.get(name);
    if (existing && existing.folder !== folder) {
      throw new Error(`a plugin named "${name}" is already installed from ${existing.folder}`);
    }
    if (existing) {
      existing.manifest = manifest;
      return existing;
    }
    const record: PluginRecord = { name, folder, source, manifest, phase: 'RESOLVED' };
    this.records.set(name, record);
    return record;
  }

  /** Drops a stopped plugin from the host (after an uninstall). */
  forget(name: string): void {
    if (this.running.has(name)) throw new Error(`plugin "${name}" is running; stop it first`);
    this.records.delete(name);
    this.logs.forget(name);
  }

  /**
   * The API groups plugin `name` owns now: its `svc.run` groups, and the domains of its own that its models and routes
   * use (a domain no model or route of it serves is not its: another plugin may serve it).
   */
  ownedGroups(name: string): string[] {
    const contributions = this.running.get(name)?.contributions ?? this.starting.get(name);
    // Registration already refused groups the plugin does not own.
    const served = [...(contributions?.models ?? []).map((m) => m.model.group), ...(contributions?.routes ?? []).map(groupOf)];
    return [...new Set([...pluginServiceGroups(name), ...served])];
  }

  /** Plugins running now that require `name`. */
  runningDependents(name: string): string[] {
    return this.list()
      .filter((r) => this.running.has(r.name) && r.manifest.spec.pluginDependencies?.[name] !== undefined)
      .map((r) => r.name);
  }

  /**
   * Required plugins that are not running (or, with `installedOnly`, not installed) at a version in range, as
   * `name@range`.
   */
  unmetDependencies(manifest: PluginManifest, { installedOnly = false } = {}): string[] {
    return Object.entries(manifest.spec.pluginDependencies ?? {})
      .filter(([dep, range]) => {
        const other = this.records.get(dep);
        if (!other || !semver.satisfies(other.manifest.spec.version, range)) return true;
        return !installedOnly && !this.running.has(dep);
      })
      .map(([dep, range]) => `${dep}@${range}`);
  }

  async start(name: string): Promise<PluginRecord> {
    const record = this.mustGet(name);
    if (this.running.has(name)) return record;
    this.logs.begin(name);
    const missing = this.unmetDependencies(record.manifest);
    if (missing.length > 0) {
      return this.fail(record, 'DependenciesNotMet', `required plugins are not started: ${missing.join(', ')}`);
    }
    record.phase = 'STARTING';
    delete record.reason;
    delete record.failure;
    const contributions: PluginContributions = { models: [], routes: [], reconcilers: [] };
    const logger = this.logs.logger(name);
    let instance: Plugin | undefined;
    const declared: ExtensionObject[] = [];
    this.starting.set(name, contributions);
    try {
      instance = await this.loadEntry(record);
      const client = createExtensionClient(this.deps.registry, this.deps.objects, { actor: pluginActor(name) });
      const context = createPluginContext(name, { registry: this.deps.registry, client, logger }, contributions);
      await withTimeout(Promise.resolve(instance.start(context)), this.deps.startTimeoutMs ?? 30_000, name);
      for (const { source, object } of inDependencyOrder(await readDeclaredObjects(record.folder))) {
        declared.push(await this.applyDeclared(name, source, object));
      }
      this.deps.router.add(contributions.routes.flatMap((route) => customRoutes(`plugin:${name}`, route)));
      for (const reconciler of contributions.reconcilers) {
        this.deps.controllers?.add(`plugin:${name}`, reconciler, { client, logger });
      }
    } catch (error) {
      await this.undo(name, { instance, contributions, declared }, false);
      return this.fail(record, 'StartFailed', (error as Error).message);
    } finally {
      this.starting.delete(name);
    }
    this.running.set(name, { instance, contributions, declared });
    record.phase = 'STARTED';
    record.startedAt = new Date().toISOString();
    logger.info(`started (${contributions.models.length} models, ${contributions.routes.length} routes)`);
    return record;
  }

  /**
   * Stops a plugin: its routes answer 404 at once, its reconcilers stop, its declared objects (role templates included)
   * are removed and its models unregistered; stored objects of its models stay. Refused while plugins that require it
   * run, unless `restarting` (an upgrade brings it straight back).
   */
  async stop(name: string, options: { restarting?: boolean } = {}): Promise<PluginRecord> {
    const record = this.mustGet(name);
    const running = this.running.get(name);
    if (!running) {
      if (record.phase !== 'STOPPED') {
        record.phase = 'STOPPED';
        delete record.reason;
        delete record.failure;
      }
      return record;
    }
    const dependents = this.runningDependents(name);
    if (dependents.length > 0 && !options.restarting) {
      throw new Error(`plugin "${name}" is required by running plugins: ${dependents.join(', ')}`);
    }
    record.phase = 'STOPPING';
    this.running.delete(name);
    await this.undo(name, running, true);
    record.phase = 'STOPPED';
    delete record.startedAt;
    return record;
  }

  /** Stops running plugins for process shutdown: routes and models go, stored objects (declared ones too) stay. */
  async shutdown(): Promise<void> {
    for (const name of [...this.startOrder()].reverse()) {
      const running = this.running.get(name);
      if (!running) continue;
      this.running.delete(name);
      await this.undo(name, { ...running, declared: [] }, true);
    }
  }

  /** Names in an order where every plugin comes after the plugins it requires (cycles keep their name order). */
  startOrder(): string[] {
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

  private async undo(
    name: string,
    running: Partial<Running> & { contributions: PluginContributions; declared: ExtensionObject[] },
    callStop: boolean,
  ) {
    this.deps.router.removeOwner(`plugin:${name}`);
    const client = createExtensionClient(this.deps.registry, this.deps.objects, { actor: pluginActor(name) });
    // Declared objects go while the plugin's reconcilers still run, so finalizers they hold (on objects of the plugin's
    // own models) are honoured; a bounded wait keeps a stuck finalizer from holding up the stop.
    const finalizing: ExtensionObject[] = [];
    for (const object of [...running.declared].reverse()) {
      const deleted = await client.delete(object, object.metadata.name).catch(() => undefined);
      if (deleted?.metadata.deletionTimestamp) finalizing.push(object);
    }
    await waitUntilGone(client, finalizing, FINALIZE_WAIT_MS);
    await this.deps.controllers?.removeOwner(`plugin:${name}`);
    if (callStop && running.instance?.stop) {
      const logger = this.logs.logger(name);
      const context = createPluginContext(name, { registry: this.deps.registry, client, logger }, running.contributions);
      // Bounded like start: a stop that hangs must not hold up the lifecycle of every other plugin.
      await withTimeout(Promise.resolve(running.instance.stop(context)), this.deps.startTimeoutMs ?? 30_000, name, 'stop').catch(
        (error: unknown) => logger.error(`stop failed: ${(error as Error).message}`),
      );
    }
    for (const served of running.contributions.models) this.deps.registry.unregister(served);
  }

  /**
   * Creates a declared object, or updates it when it exists and differs; returns it as stored. An object of that name
   * that the plugin does not own (someone made it through the API, or another plugin declared it) is never taken
   * over: the start fails naming it and its owner. An unchanged object is admitted again as it is stored, so what it
   * grants is checked by today's rules even when nothing is written; one they refuse is deleted.
   */
  private async applyDeclared(plugin: string, source: string, declared: ExtensionObject): Promise<ExtensionObject> {
    const object: ExtensionObject = {
      ...declared,
      metadata: { ...declared.metadata, labels: { ...declared.metadata?.labels, [PLUGIN_NAME_LABEL]: plugin } },
    };
    warnOnTemplateName(plugin, source, object, this.logs.logger(plugin));
    const client = createExtensionClient(this.deps.registry, this.deps.objects, {
      allowUnprefixedLabels: false,
      actor: pluginActor(plugin),
    });
    try {
      const existing = await client.fetch(object, object.metadata.name);
      if (!existing) return await client.create(object);
      if (ownerOf(existing) !== plugin) {
        throw new Error(`it already exists and belongs to ${describeOwner(ownerOf(existing))}; a plugin never takes over an object it did not declare`);
      }
      if (sameDeclaredContent(existing, object)) {
        await this.readmit(plugin, existing).catch(async (error: unknown) => {
          // Stored before today's rules refused it: it is the plugin's own, and must not keep granting meanwhile.
          await client.delete(existing, existing.metadata.name);
          throw error;
        });
        return existing;
      }
      return await client.update({ ...object, metadata: { ...object.metadata, version: existing.metadata.version } });
    } catch (error) {
      throw new Error(`${source} (${object.kind} "${object.metadata?.name}"): ${(error as Error).message}`);
    }
  }

  /** Runs the admission checks of an unchanged write of `object` as the plugin, without writing. */
  private async readmit(plugin: string, object: ExtensionObject): Promise<void> {
    const served = this.deps.registry.findByKind(object.apiVersion, object.kind);
    if (!served) return;
    await this.deps.objects.admission.run({ operation: 'update', served, object, prevObject: object, actor: pluginActor(plugin) });
  }

  private async loadEntry(record: PluginRecord): Promise<Plugin> {
    const entry = path.resolve(record.folder, record.manifest.spec.main);
    const module = (await importPluginEntry(entry, await codeFingerprint(record.folder))) as { default?: Plugin };
    const plugin = module.default;
    if (!plugin || typeof plugin.start !== 'function') {
      throw new Error(`${record.manifest.spec.main} has no default export with a start function (use definePlugin)`);
    }
    return plugin;
  }

  private fail(record: PluginRecord, failure: PluginRecord['failure'], reason: string): PluginRecord {
    record.phase = 'FAILED';
    record.reason = reason;
    record.failure = failure;
    delete record.startedAt;
    this.logs.logger(record.name).error(`plugin failed to start: ${reason}`);
    return record;
  }

  private mustGet(name: string): PluginRecord {
    const record = this.records.get(name);
    if (!record) throw new Error(`no plugin named "${name}" is installed`);
    return record;
  }
}

const FINALIZE_WAIT_MS = 5000;

async function waitUntilGone(client: ExtensionClient, objects: ExtensionObject[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (const object of objects) {
    while (Date.now() < deadline && (await client.fetch(object, object.metadata.name).catch(() => undefined))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function pluginActor(plugin: string): Actor {
  return { kind: 'plugin', plugin };
}

/** The seed's convention for role templates: `<plugin>-role-<view|manage>-<resources>`. A warning, not a refusal. */
function warnOnTemplateName(plugin: string, source: string, object: ExtensionObject, logger: { warn(m: string): void }) {
  if (object.kind !== 'Role' || object.metadata.labels?.[ROLE_TEMPLATE_LABEL] !== 'true') return;
  if (new RegExp(`^${plugin}-role-(view|manage)-[a-z0-9]`).test(object.metadata.name)) return;
  logger.warn(
    `${source}: role template "${object.metadata.name}" should be named ${plugin}-role-<view|manage>-<resources>`,
  );
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

async function withTimeout<T>(promise: Promise<T>, ms: number, plugin: string, step = 'start'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step} of plugin "${plugin}" did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
