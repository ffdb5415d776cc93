import { type ExtensionObject, forbidden } from '@svc/plugin-api';
import type { Principal } from '../authz/principal.js';
import { ownerLabelProblem } from '../objects/ownership.js';
import type { ServedModel } from './model-registry.js';

/** Who asks for a write: a user over HTTP, a plugin through its client, or the service itself. */
export type Actor = { kind: 'user'; principal: Principal } | { kind: 'plugin'; plugin: string } | { kind: 'system' };

export const SYSTEM: Actor = Object.freeze({ kind: 'system' });

export interface AdmissionRequest {
  operation: 'create' | 'update' | 'delete';
  served: ServedModel;
  /** The object as it will be stored (for a delete, with its deletionTimestamp). */
  object: ExtensionObject;
  prevObject?: ExtensionObject;
  subresource?: 'status';
  actor: Actor;
  /** Only asking whether the write would be admitted (a collection checked whole before any of it is deleted). */
  dryRun?: boolean;
  /**
   * Keeps what a check decided true until the write has settled (stored, refused later, or failed): `release` is called
   * then. A check that counts something the write is about to change (the last enabled super administrator) reserves
   * it here, so a concurrent write's check cannot count it too. Absent where nothing can be held (a collection's dry
   * run).
   */
  hold?: (release: () => void) => void;
}

/**
 * A check a write must pass after validation and before the store (k8s' validating admission): rules that need other
 * objects or the actor, such as "a binding names an existing role" or "nobody grants what they do not hold". It throws
 * an ApiError to refuse, and changes nothing.
 */
export type AdmissionCheck = (request: AdmissionRequest) => void | Promise<void>;

/**
 * Work a write brings with it, done after every check of the write has passed and before the store (a deleted role's
 * bindings go with it). Never run for a dry run. Kept apart from checks so that no check ever sees the world half
 * changed by another's work.
 */
export type AdmissionEffect = (request: AdmissionRequest) => Promise<void>;

/** Admission checks, then effects, by store resource (`<group>/<plural>`), each list in the order added. */
export class Admission {
  private readonly checks = new Map<string, AdmissionCheck[]>();
  private readonly effects = new Map<string, AdmissionEffect[]>();

  add(resource: string, check: AdmissionCheck): () => void {
    return addTo(this.checks, resource, check);
  }

  addEffect(resource: string, effect: AdmissionEffect): () => void {
    return addTo(this.effects, resource, effect);
  }

  /** Whether writes of the store resource have checks or effects of their own. */
  has(resource: string): boolean {
    return this.checks.has(resource) || this.effects.has(resource);
  }

  /** Whether writes of the store resource have effects: work done before the commit, on the state the write read. */
  hasEffects(resource: string): boolean {
    return this.effects.has(resource);
  }

  /**
   * Runs the checks of the request's model in order, then (unless a dry run) its effects; undefined when it has
   * neither (most models: no promise to await). Every model first keeps the owner label out of the writer's hands
   * (objects/ownership.ts); that throws at once.
   */
  run(request: AdmissionRequest): Promise<void> | undefined {
    const problem = ownerLabelProblem(request.actor, request.object, request.prevObject);
    if (problem !== undefined) throw forbidden(problem);
    const resource = request.served.model.resource;
    const checks = this.checks.get(resource);
    const effects = request.dryRun ? undefined : this.effects.get(resource);
    return checks || effects ? runAll(checks ?? [], effects ?? [], request) : undefined;
  }
}

function addTo<T>(lists: Map<string, T[]>, resource: string, item: T): () => void {
  lists.set(resource, [...(lists.get(resource) ?? []), item]);
  return () => {
    const remaining = (lists.get(resource) ?? []).filter((c) => c !== item);
    if (remaining.length > 0) lists.set(resource, remaining);
    else lists.delete(resource);
  };
}

async function runAll(
  checks: readonly AdmissionCheck[],
  effects: readonly AdmissionEffect[],
  request: AdmissionRequest,
) {
  for (const check of checks) await check(request);
  for (const effect of effects) await effect(request);
}
