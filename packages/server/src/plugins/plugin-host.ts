import type {
  ExtensionClient,
  ExtensionObject,
  Plugin,
  PluginManifest,
  PluginSettings,
  ReconcileContext,
  ReconcilerDefinition,
} from '@svc/plugin-api';
import type { Logger as PinoLogger } from 'pino';
import { type CallerRoles, customRoutes, groupOf } from '../api/custom-routes.js';
import type { DynamicRouter } from '../api/dynamic-router.js';
import type { HttpContext } from '../api/http-context.js';
import type { ControllerManager } from '../controllers/controller-manager.js';
import { pluginServiceGroups } from '../objects/domains.js';
import { createExtensionClient } from '../registry/client.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { type AppliedDeclaration, applyDeclared, isRole, removeDeclared } from './declared-objects.js';
import { inDependencyOrder, readDeclaredObjects } from './extensions.js';
import { createPluginContext, type PluginContributions, pluginActor } from './plugin-context.js';
import * as dependencies from './plugin-dependencies.js';
import { loadPluginEntry, withTimeout } from './plugin-entry.js';
import { PluginLogs } from './plugin-logs.js';
import { removeUndeclared } from './undeclared-objects.js';

export interface PluginRecord {
  name: string;
  folder: string;
  /** `directory`: loaded in place from SVC_PLUGINS_DIR; `archive`: installed into the data folder. */
  source: 'directory' | 'archive';
  manifest: PluginManifest;
  /** sha256 of the archive the code was unpacked from, when known (installed-code.ts); none for a folder. */
  digest?: string;
  /** When its latest start succeeded, while it runs. */
  startedAt?: string;
  /** The store resources (`<group>/<plural>`) of the models its latest successful start registered. */
  models?: string[];
  /**
   * The start request (plugin-model.ts, START_REQUEST_ANNOTATION) under which this code's latest start failed: the
   * reconciler does not try it again until the request or the code changes. New code clears it.
   */
  failedUnder?: string;
}

/** Code found or put in place, with its manifest (read once, by whoever found it: code-placement.ts). */
export interface FoundCode {
  folder: string;
  source: PluginRecord['source'];
  manifest: PluginManifest;
  digest?: string;
}

/** How a start ended: running, or why not (the FAILED reasons a Plugin's status reports). */
export type StartOutcome = { ok: true } | { ok: false; failure: 'StartFailed' | 'DependenciesNotMet'; reason: string };

interface Running {
  instance: Plugin;
  contributions: PluginContributions;
  /** The objects of `extensions/` a stop (or a failed start's undo) deletes. */
  declared: ExtensionObject[];
}

export interface PluginHostDeps {
  registry: ModelRegistry;
  objects: ObjectService;
  router: DynamicRouter<HttpContext>;
  logger: PinoLogger;
  startTimeoutMs?: number;
  /** The roles a caller holds, handed to plugins' custom-route handlers as `user.roles` (none without it). */
  callerRoles?: CallerRoles;
  /** Runs the reconcilers plugins add (none run without it). */
  controllers?: ControllerManager;
  /**
   * Several servers share the store (and serve the same plugins): a plugin's declared objects are then removed only by
   * the leader (`leads`), when the plugin is stopped on purpose, never because one server's start failed, so what one
   * replica undoes never removes what the others serve.
   */
  replicas?: {
    leads: () => boolean;
    catchUp: () => Promise<void>;
    /** Runs the leader's removals fenced by its lease: false when the store refused them, the lease having moved on. */
    whileLeading?: (work: () => Promise<void>) => Promise<boolean>;
  };
  /** A plugin's settings, read with the schema its manifest declares (plugin-settings.ts); none without it. */
  settings?: (plugin: string, schema: () => Record<string, unknown> | undefined) => PluginSettings & { close(): void };
}

/**
 * Runs plugins in this process. Start: load the entry (fresh when its code changed), call `start` (which registers
 * models, building their indexes), create the objects of `extensions/`, then mount the routes and start the reconcilers
 * it added. A failure at any step undoes the earlier ones and answers why; the host and other plugins carry on. Stop
 * is the reverse. This class knows the code it holds and whether each runs, nothing of Plugin objects: the reconciler
 * (plugin-reconciler.ts) decides what should run and reports in status what does; declared-objects.ts writes
 * `extensions/`.
 */
export class PluginHost {
  private readonly records = new Map<string, PluginRecord>();
  private readonly running = new Map<string, Running>();
  /** What a plugin registered while it starts, before it runs: the groups it owns are known from `start` on. */
  private readonly starting = new Map<string, PluginContributions>();
  private readonly runningListeners = new Set<(record: PluginRecord) => void>();
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

  /** Whether plugin `name` runs in this process now. */
  readonly isRunning = (name: string): boolean => this.running.has(name);

  /**
   * Records code found or put in place (not running). A name already taken by another folder is refused; new code for
   * a known plugin replaces its manifest, which only code-placement.ts does, and only while the plugin is stopped.
   */
  resolve(code: FoundCode): PluginRecord {
    const { folder, source, manifest, digest } = code;
    const name = manifest.metadata.name;
    const existing = this.records.get(name);
    if (existing && existing.folder !== folder) {
      throw new Error(`a plugin named "${name}" is already installed from ${existing.folder}`);
    }
    if (existing) {
      Object.assign(existing, { manifest, digest });
      delete existing.failedUnder;
      return existing;
    }
    const record: PluginRecord = { name, folder, source, manifest, digest };
    this.records.set(name, record);
    return record;
  }

  /** Listens for plugins starting and stopping to run (the console follows plugin UIs). Returns the unsubscribe. */
  onRunningChange(listener: (record: PluginRecord) => void): () => void {
    this.runningListeners.add(listener);
    return () => this.runningListeners.delete(listener);
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
    const served = [
      ...(contributions?.models ?? []).map((m) => m.model.group),
      ...(contributions?.routes ?? []).map(groupOf),
    ];
    return [...new Set([...pluginServiceGroups(name), ...served])];
  }

  /** The plugin other than `except`, running or starting, whose models or custom routes are in `group`. */
  groupOwner(group: string, except: string): string | undefined {
    const serving: Array<[string, PluginContributions]> = [
      ...[...this.running].map(([plugin, running]): [string, PluginContributions] => [plugin, running.contributions]),
      ...this.starting,
    ];
    for (const [plugin, contributions] of serving) {
      if (plugin === except) continue;
      if (contributions.models.some((m) => m.model.group === group)) return plugin;
      if (contributions.routes.some((route) => groupOf(route) === group)) return plugin;
    }
    return undefined;
  }

  /** Plugins running now that require `name`. */
  runningDependents(name: string): string[] {
    return dependencies.runningDependents(name, this.records.values(), this.isRunning);
  }

  /**
   * Required plugins that are not running (or, with `installedOnly`, not installed) at a version in range, as
   * `name@range`.
   */
  unmetDependencies(manifest: PluginManifest, options: { installedOnly?: boolean } = {}): string[] {
    return dependencies.unmetDependencies(manifest.spec, this.records, this.isRunning, options);
  }

  /** Names in an order where every plugin comes after the plugins it requires (cycles keep their name order). */
  startOrder(): string[] {
    return dependencies.startOrder(this.records);
  }

  /** Starts a plugin; answers whether it runs now, or why not. */
  async start(name: string): Promise<StartOutcome> {
    const record = this.mustGet(name);
    if (this.running.has(name)) return { ok: true };
    this.logs.begin(name);
    const missing = this.unmetDependencies(record.manifest);
    if (missing.length > 0) {
      return this.fail(record, 'DependenciesNotMet', `required plugins are not started: ${missing.join(', ')}`);
    }
    const contributions: PluginContributions = { models: [], routes: [], reconcilers: [] };
    contributions.settings = this.deps.settings?.(name, () => record.manifest.spec.settings);
    const logger = this.logs.logger(name);
    let instance: Plugin | undefined;
    const applied: AppliedDeclaration[] = [];
    this.starting.set(name, contributions);
    try {
      const loaded = await loadPluginEntry(record.folder, record.manifest.spec.main);
      instance = loaded.plugin;
      const client = this.clientOf(name);
      const context = createPluginContext(
        name,
        {
          registry: this.deps.registry,
          client,
          logger,
          code: loaded.code,
          groupTakenBy: (group) => this.groupOwner(group, name),
        },
        contributions,
      );
      await withTimeout(Promise.resolve(instance.start(context)), this.timeoutMs, name);
      const deps = { ...this.deps, catchUp: this.deps.replicas?.catchUp };
      for (const { source, object } of inDependencyOrder(await readDeclaredObjects(record.folder))) {
        applied.push(await applyDeclared(deps, name, source, object, logger));
      }
      if (this.leads) {
        const remove = () =>
          removeUndeclared(
            deps,
            name,
            applied.map(({ object }) => object),
            logger,
          );
        const whileLeading = this.deps.replicas?.whileLeading;
        if (whileLeading && !(await whileLeading(remove))) {
          logger.warn(
            'this replica no longer leads: what the plugin no longer declares stays until its next start on the leader',
          );
        } else if (!whileLeading) await remove();
      }
      this.deps.router.add(
        contributions.routes.flatMap((route) => customRoutes(`plugin:${name}`, route, this.deps.callerRoles)),
      );
      for (const reconciler of contributions.reconcilers) {
        this.deps.controllers?.add(`plugin:${name}`, reconciler, this.reconcileContext(name));
      }
    } catch (error) {
      // What this start made, and its roles (which exist only while it runs), go again; objects that were there
      // before stay, with whatever users changed in them. Replicas never undo: the others may serve them.
      const undone = applied.filter(({ object, created }) => created || isRole(object)).map(({ object }) => object);
      await this.undo(name, { instance, contributions, declared: this.deps.replicas ? [] : undone }, false);
      return this.fail(record, 'StartFailed', (error as Error).message);
    } finally {
      this.starting.delete(name);
    }
    const roles = applied.map(({ object }) => object).filter(isRole);
    this.running.set(name, { instance, contributions, declared: roles });
    record.models = contributions.models.map((served) => served.model.resource);
    record.startedAt = new Date().toISOString();
    this.runningChanged(record);
    logger.info(`started (${contributions.models.length} models, ${contributions.routes.length} routes)`);
    return { ok: true };
  }

  /**
   * Stops a plugin: its routes answer 404 at once, its reconcilers stop, the roles it declared are removed and its
   * models unregistered; its other declared objects and the stored objects of its models stay. Refused while plugins
   * that require it run, unless `restarting` (new code brings it straight back). A plugin not running: nothing to do.
   */
  async stop(name: string, options: { restarting?: boolean } = {}): Promise<void> {
    const record = this.mustGet(name);
    const running = this.running.get(name);
    if (!running) return;
    const dependents = this.runningDependents(name);
    if (dependents.length > 0 && !options.restarting) {
      throw new Error(`plugin "${name}" is required by running plugins: ${dependents.join(', ')}`);
    }
    this.running.delete(name);
    await this.undo(name, this.leads ? running : { ...running, declared: [] }, true);
    delete record.startedAt;
    this.runningChanged(record);
  }

  /** Stops running plugins for process shutdown: routes and models go, stored objects (declared roles too) stay. */
  async shutdown(): Promise<void> {
    for (const name of [...this.startOrder()].reverse()) {
      const running = this.running.get(name);
      if (!running) continue;
      this.running.delete(name);
      await this.undo(name, { ...running, declared: [] }, true);
    }
  }

  private async undo(
    name: string,
    running: Partial<Running> & { contributions: PluginContributions; declared: ExtensionObject[] },
    callStop: boolean,
  ) {
    this.deps.router.removeOwner(`plugin:${name}`);
    const client = this.clientOf(name);
    // Declared objects go while the plugin's reconcilers run (see removeDeclared), which a start that failed first
    // starts: the finalizers they hold (their models give every new object theirs) are let go, not left holding them.
    if (running.declared.length > 0) this.runReconcilers(name, running.contributions.reconcilers);
    // Only the leader removes them (see stop), fenced: a deposed leader's deletes are refused.
    const removeAll = () => removeDeclared(client, running.declared);
    const whileLeading = this.deps.replicas?.whileLeading;
    await (running.declared.length > 0 && whileLeading ? whileLeading(removeAll) : removeAll());
    await this.deps.controllers?.removeOwner(`plugin:${name}`);
    if (callStop && running.instance?.stop) {
      const logger = this.logs.logger(name);
      const context = createPluginContext(
        name,
        { registry: this.deps.registry, client, logger },
        running.contributions,
      );
      // Bounded like start: a stop that hangs must not hold up the lifecycle of every other plugin.
      await withTimeout(Promise.resolve(running.instance.stop(context)), this.timeoutMs, name, 'stop').catch(
        (error: unknown) => logger.error(`stop failed: ${(error as Error).message}`),
      );
    }
    running.contributions.settings?.close();
    for (const served of running.contributions.models) this.deps.registry.unregister(served);
  }

  /** Starts those of the plugin's reconcilers not running yet, for the undo to stop; a refused definition is left out. */
  private runReconcilers(name: string, reconcilers: readonly ReconcilerDefinition[]): void {
    const owner = `plugin:${name}` as const;
    const running = new Set(this.deps.controllers?.names(owner));
    const context = this.reconcileContext(name);
    for (const reconciler of reconcilers) {
      if (running.has(reconciler.name)) continue;
      try {
        this.deps.controllers?.add(owner, reconciler, context);
      } catch {
        // The failure being undone may be this very definition (its model or selectors): it has nothing to run.
      }
    }
  }

  /** The client a plugin's writes go through: as the plugin, so admission knows who writes. */
  private clientOf(name: string): ExtensionClient {
    return createExtensionClient(this.deps.registry, this.deps.objects, { actor: pluginActor(name) });
  }

  /** What a plugin's reconcilers get: its client, reading objects as this server applied them (ReadOptions). */
  private reconcileContext(name: string): ReconcileContext {
    const client = createExtensionClient(
      this.deps.registry,
      this.deps.objects,
      { actor: pluginActor(name) },
      { applied: true },
    );
    return { client, logger: this.logs.logger(name) };
  }

  /** Whether this server removes declared objects: the only one, or the leader of replicas. */
  private get leads(): boolean {
    return this.deps.replicas?.leads() ?? true;
  }

  /** How long a plugin's `start` (and its `stop`) may take. */
  get timeoutMs(): number {
    return this.deps.startTimeoutMs ?? 30_000;
  }

  private fail(record: PluginRecord, failure: 'StartFailed' | 'DependenciesNotMet', reason: string): StartOutcome {
    this.logs.logger(record.name).error(`plugin failed to start: ${reason}`);
    return { ok: false, failure, reason };
  }

  private runningChanged(record: PluginRecord): void {
    for (const listener of this.runningListeners) {
      try {
        listener(record);
      } catch (error) {
        this.deps.logger.error({ err: error, plugin: record.name }, 'a plugin running-change listener failed');
      }
    }
  }

  private mustGet(name: string): PluginRecord {
    const record = this.records.get(name);
    if (!record) throw new Error(`no plugin named "${name}" is installed`);
    return record;
  }
}
