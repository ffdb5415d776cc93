import { type Lifecycle, type Module, PHASES, type Phase, type Ref, STOP_STAGES, type StopStage } from './module.js';

type Hook = () => Promise<void> | void;
type Wrap = (run: () => Promise<void>) => Promise<void>;

/** The modules started, with what they provide. */
export interface Composed {
  get<T>(ref: Ref<T>): T;
  /** The `onReady` hooks, in the order they were registered. */
  ready(): Promise<void>;
  /** Every stop hook, stage by stage, each stage in the reverse of the start; throws the first failure at the end. */
  stop(): Promise<void>;
}

/**
 * Orders `modules` so that each starts after the modules providing its needs and after every module of an earlier
 * phase, keeping the listed order otherwise; throws, naming them, on a need nobody provides, a need on a later phase,
 * two providers of one ref, or a cycle. Pure.
 */
export function startOrder(modules: readonly Module[], given: ReadonlySet<string>): Module[] {
  const provider = new Map<string, Module>();
  for (const module of modules) {
    const other = provider.get(module.provides.id);
    if (other || given.has(module.provides.id)) {
      throw new Error(`modules ${other?.name ?? 'the root'} and ${module.name} both provide ${module.provides.id}`);
    }
    provider.set(module.provides.id, module);
  }
  const phase = (module: Module) => PHASES.indexOf(module.phase);
  for (const module of modules) {
    for (const [name, need] of Object.entries(module.needs)) {
      if (given.has(need.id)) continue;
      const from = provider.get(need.id);
      if (!from) throw new Error(`module ${module.name} needs ${need.id} (as ${name}), which no module provides`);
      if (phase(from) > phase(module)) {
        throw new Error(
          `module ${module.name} (phase ${module.phase}) needs ${need.id} from ${from.name}, which starts later (phase ${from.phase})`,
        );
      }
    }
  }
  const ordered: Module[] = [];
  const state = new Map<Module, 'visiting' | 'done'>();
  const visit = (module: Module, trail: string[]) => {
    if (state.get(module) === 'done') return;
    if (state.get(module) === 'visiting')
      throw new Error(`modules need each other: ${[...trail, module.name].join(' -> ')}`);
    state.set(module, 'visiting');
    for (const need of Object.values(module.needs)) {
      const from = provider.get(need.id);
      if (from) visit(from, [...trail, module.name]);
    }
    state.set(module, 'done');
    ordered.push(module);
  };
  for (const current of PHASES) for (const module of modules) if (module.phase === current) visit(module, []);
  return ordered;
}

/** Starts `modules` in their order (startOrder), with `given` values the root provides (settings, the logger). */
export async function compose(
  modules: readonly Module[],
  given: ReadonlyArray<[Ref<unknown>, unknown]>,
): Promise<Composed> {
  const values = new Map<string, unknown>(given.map(([ref, value]) => [ref.id, value]));
  const order = startOrder(modules, new Set(values.keys()));
  const wraps = new Map<Phase, Wrap[]>();
  const readyHooks: Hook[] = [];
  const stopHooks = new Map<StopStage, Hook[]>(STOP_STAGES.map((stage) => [stage, []]));
  const lifecycle: Lifecycle = {
    aroundPhase: (phase, wrap) => void wraps.set(phase, [...(wraps.get(phase) ?? []), wrap]),
    onReady: (hook) => void readyHooks.push(hook),
    onStop: (stage, hook) => void stopHooks.get(stage)!.push(hook),
  };
  const composed: Composed = {
    get<T>(ref: Ref<T>): T {
      if (!values.has(ref.id)) throw new Error(`nothing provides ${ref.id}`);
      return values.get(ref.id) as T;
    },
    async ready() {
      for (const hook of readyHooks) await hook();
    },
    async stop() {
      let failure: unknown;
      for (const stage of STOP_STAGES) {
        for (const hook of [...stopHooks.get(stage)!].reverse()) {
          try {
            await hook();
          } catch (error) {
            failure ??= error;
          }
        }
      }
      if (failure !== undefined) throw failure;
    },
  };
  const startOne = async (module: Module) => {
    const needs = Object.fromEntries(Object.entries(module.needs).map(([name, need]) => [name, values.get(need.id)]));
    try {
      values.set(module.provides.id, await module.start(needs, lifecycle));
    } catch (error) {
      (error as Error).message = `module ${module.name} failed to start: ${(error as Error).message}`;
      throw error;
    }
  };
  try {
    for (const phase of PHASES) {
      const inPhase = order.filter((module) => module.phase === phase);
      // Wrappers registered by modules of earlier phases (the boot lock) enclose this phase's starts.
      const run = (wraps.get(phase) ?? []).reduceRight<() => Promise<void>>(
        (inner, wrap) => () => wrap(inner),
        async () => {
          for (const module of inPhase) await startOne(module);
        },
      );
      await run();
    }
  } catch (error) {
    // What started lets go of what it holds (the store, its lock) before the failure is reported.
    await composed.stop().catch(() => undefined);
    throw error;
  }
  return composed;
}
