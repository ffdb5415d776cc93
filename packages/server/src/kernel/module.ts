/**
 * The contract of a feature module (after Backstage's `createBackendPlugin` with service refs, controller-runtime's
 * `Runnable` and Fastify's plugin `dependencies`): a module names what it needs and what it provides, by typed refs,
 * and starts from what it needs in one of the server's phases. The kernel (compose.ts) orders the starts from these
 * declarations and stops what started in declared stages; `main.ts` only lists the modules.
 */

/** A typed name for a value one module provides and others need. */
export interface Ref<T> {
  readonly id: string;
  /** Carries the type only; never set. */
  readonly type?: T;
}

export function ref<T>(id: string): Ref<T> {
  return { id };
}

/**
 * The phases of a start, in order. `open`: the store and the services over it, and the HTTP kernel. `boot`: what
 * writes the service's own objects (roles, the super administrator, plugins' declarations), which replicas take turns
 * at (the store module wraps the phase in its boot lock). `serve`: what only serves (the console, OpenAPI, metrics).
 */
export const PHASES = ['open', 'boot', 'serve'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * The stages of a stop, in order; within a stage, modules stop in the reverse of their start. `streams`: long-lived
 * answers end (they would hold the listeners open). `listeners`: no new requests. `writers`: reconcilers and other
 * background writers finish. `snapshots`: what is written down while the indexes hold exactly what was committed.
 * `services`: everything else lets go of what it holds, the store last.
 */
export const STOP_STAGES = ['streams', 'listeners', 'writers', 'snapshots', 'services'] as const;
export type StopStage = (typeof STOP_STAGES)[number];

type Hook = () => Promise<void> | void;

/** What a module may hook into while it starts. */
export interface Lifecycle {
  /** Wraps the starts of every later module in `phase` (the store's boot lock); wrappers nest in registration order. */
  aroundPhase(phase: Phase, wrap: (run: () => Promise<void>) => Promise<void>): void;
  /** Runs once every module has started, in registration order (the HTTP kernel gets ready, then controllers lead). */
  onReady(hook: Hook): void;
  /** Runs at the stop, in `stage`. */
  onStop(stage: StopStage, hook: Hook): void;
}

export type Needs = Record<string, Ref<unknown>>;
/** The values of a module's needs, by the names it gave them. */
export type Provided<N extends Needs> = { [K in keyof N]: N[K] extends Ref<infer T> ? T : never };

export interface Module<N extends Needs = Needs, P = unknown> {
  name: string;
  phase: Phase;
  needs: N;
  provides: Ref<P>;
  start(needs: Provided<N>, lifecycle: Lifecycle): Promise<P> | P;
}

/** Declares a module; only adds types. */
export function defineModule<N extends Needs, P>(module: Module<N, P>): Module<N, P> {
  return module;
}
