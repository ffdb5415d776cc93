import type { ModelRef } from './models.js';
import type { ExtensionClient, Logger } from './plugin.js';

/** What a reconciler is asked to do: bring the object of that name (of its model) to its desired state. */
export interface ReconcileRequest {
  name: string;
}

export interface ReconcileResult {
  /** Reconcile this object again after so many milliseconds (for example to poll something outside svc). */
  requeueAfter?: number;
}

export interface ReconcileContext {
  /**
   * The plugin's client. On replicas (several servers on one PostgreSQL) its `get` and `fetch` read an object as this
   * server last applied it, as controller-runtime's cached client reads: a moment behind another replica's write at
   * most, and never behind the change this reconcile was called for. A write made from a stale read is refused (409)
   * by its resourceVersion, and the reconcile runs again on the newer state.
   */
  client: ExtensionClient;
  logger: Logger;
}

/**
 * A controller (level-based, as Kubernetes' controller-runtime): svc calls `reconcile` with an object's name whenever
 * that object changes (inside the selectors, or moving out of them), for every matching object once at start, and
 * again after `requeueAfter`. The reconciler reads the current state itself; it may be called for an object that no
 * longer exists. Throwing retries the name with exponential backoff. One name is never reconciled by two workers at
 * once; changes that arrive meanwhile coalesce into one more call.
 */
export interface ReconcilerDefinition {
  /** Unique within the plugin; used in logs. */
  name: string;
  model: ModelRef;
  labelSelector?: string | string[];
  fieldSelector?: string | string[];
  /**
   * Names reconciled in parallel (default 1). The writes of workers waiting at the same moment share one commit, so a
   * reconciler that writes for many objects wants many (the people plugin runs 128).
   */
  workers?: number;
  reconcile(request: ReconcileRequest, context: ReconcileContext): Promise<ReconcileResult | void>;
}

/** What a plugin uses to add reconcilers. They start once the plugin's `start` succeeds and stop when it stops. */
export interface ReconcilerRegistry {
  add(definition: ReconcilerDefinition): void;
}
