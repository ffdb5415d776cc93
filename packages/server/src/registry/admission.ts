import { forbidden, type ExtensionObject } from '@svc/plugin-api';
import type { Principal } from '../authn/principal.js';
import { ownerLabelProblem } from '../objects/ownership.js';
import type { ServedModel } from './model-registry.js';

/** Who asks for a write: a user over HTTP, a plugin through its client, or the service itself. */
export type Actor =
  | { kind: 'user'; principal: Principal }
  | { kind: 'plugin'; plugin: string }
  | { kind: 'system' };

export const SYSTEM: Actor = Object.freeze({ kind: 'system' });

export interface AdmissionRequest {
  operation: 'create' | 'update' | 'delete';
  served: ServedModel;
  /** The object as it will be stored (for a delete, with its deletionTimestamp). */
  object: ExtensionObject;
  prevObject?: ExtensionObject;
  subresource?: 'status';
  actor: Actor;
  /**
   * Only asking whether the write would be admitted (a collection checked whole before any of it is deleted): a check
   * that also does work for the write, such as removing a deleted user's bindings, must skip that work.
   */
  dryRun?: boolean;
}

/**
 * A check a write must pass after validation and before the store (k8s' validating admission): rules that need other
 * objects or the actor, such as "a binding names an existing role" or "nobody grants what they do not hold". It throws
 * an ApiError to refuse.
 */
export type AdmissionCheck = (request: AdmissionRequest) => void | Promise<void>;

/** Admission checks by store resource (`<group>/<plural>`). */
export class Admission {
  private readonly checks = new Map<string, AdmissionCheck[]>();

  add(resource: string, check: AdmissionCheck): () => void {
    const list = this.checks.get(resource) ?? [];
    list.push(check);
    this.checks.set(resource, list);
    return () => {
      const remaining = (this.checks.get(resource) ?? []).filter((c) => c !== check);
      if (remaining.length > 0) this.checks.set(resource, remaining);
      else this.checks.delete(resource);
    };
  }

  /** Whether writes of the store resource have checks of their own. */
  has(resource: string): boolean {
    return this.checks.has(resource);
  }

  /**
   * Runs the checks of the request's model in order; undefined when it has none (most models: no promise to await).
   * Every model first keeps the owner label out of the writer's hands (objects/ownership.ts); that throws at once.
   */
  run(request: AdmissionRequest): Promise<void> | undefined {
    const problem = ownerLabelProblem(request.actor, request.object, request.prevObject);
    if (problem !== undefined) throw forbidden(problem);
    const checks = this.checks.get(request.served.model.resource);
    return checks && runChecks(checks, request);
  }
}

async function runChecks(checks: readonly AdmissionCheck[], request: AdmissionRequest): Promise<void> {
  for (const check of checks) await check(request);
}
