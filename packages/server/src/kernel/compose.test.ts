import { describe, expect, it } from 'vitest';
import { compose, startOrder } from './compose.js';
import { defineModule, type Module, type Phase, ref } from './module.js';

/** A module named `name` providing ref `name`, needing the refs of `needs`, that records its start and stops. */
function fake(name: string, phase: Phase, needs: string[], log: string[] = []): Module {
  return defineModule({
    name,
    phase,
    needs: Object.fromEntries(needs.map((n) => [n, ref<string>(n)])),
    provides: ref<string>(name),
    start(values, lifecycle) {
      log.push(`start ${name}(${Object.values(values).join(',')})`);
      lifecycle.onStop('services', () => void log.push(`stop ${name}`));
      return `${name}!`;
    },
  }) as Module;
}

describe('startOrder', () => {
  const names = (modules: Module[]) => modules.map((m) => m.name);
  const cases: Array<{ name: string; modules: Module[]; order?: string[]; error?: RegExp }> = [
    {
      name: 'keeps the listed order when nothing constrains it',
      modules: [fake('a', 'open', []), fake('b', 'open', [])],
      order: ['a', 'b'],
    },
    { name: 'starts a need first', modules: [fake('b', 'open', ['a']), fake('a', 'open', [])], order: ['a', 'b'] },
    {
      name: 'starts earlier phases first',
      modules: [fake('s', 'serve', []), fake('b', 'boot', []), fake('o', 'open', [])],
      order: ['o', 'b', 's'],
    },
    {
      name: 'a later phase may need an earlier one',
      modules: [fake('b', 'boot', ['o']), fake('o', 'open', [])],
      order: ['o', 'b'],
    },
    { name: 'takes a root-given value as provided', modules: [fake('a', 'open', ['settings'])], order: ['a'] },
    {
      name: 'refuses a need nobody provides',
      modules: [fake('a', 'open', ['nobody'])],
      error: /module a needs nobody \(as nobody\), which no module provides/,
    },
    {
      name: 'refuses a need on a later phase',
      modules: [fake('o', 'open', ['b']), fake('b', 'boot', [])],
      error: /module o \(phase open\) needs b from b, which starts later \(phase boot\)/,
    },
    {
      name: 'refuses a cycle, naming it',
      modules: [fake('a', 'open', ['b']), fake('b', 'open', ['a'])],
      error: /modules need each other: a -> b -> a/,
    },
    {
      name: 'refuses two providers of one ref',
      modules: [fake('a', 'open', []), fake('a', 'open', [])],
      error: /modules a and a both provide a/,
    },
  ];
  it.each(cases)('$name', ({ modules, order, error }) => {
    const run = () => names(startOrder(modules, new Set(['settings'])));
    if (error) expect(run).toThrow(error);
    else expect(run()).toEqual(order);
  });
});

describe('compose', () => {
  it('starts each module with what it needs, and stops stage by stage, each stage in reverse', async () => {
    const log: string[] = [];
    const streams = defineModule({
      name: 'streams',
      phase: 'boot',
      needs: { a: ref<string>('a') },
      provides: ref<number>('streams'),
      start(_needs, lifecycle) {
        lifecycle.onStop('streams', () => void log.push('end streams'));
        lifecycle.onReady(() => void log.push('ready streams'));
        return 1;
      },
    }) as Module;
    const composed = await compose(
      [streams, fake('b', 'open', ['a'], log), fake('a', 'open', ['settings'], log)],
      [[ref('settings'), 'S']],
    );
    expect(composed.get(ref<string>('b'))).toBe('b!');
    await composed.ready();
    await composed.stop();
    expect(log).toEqual(['start a(S)', 'start b(a!)', 'ready streams', 'end streams', 'stop b', 'stop a']);
  });

  it('wraps a phase in the wrappers earlier modules registered, nested in order', async () => {
    const log: string[] = [];
    const lock = defineModule({
      name: 'lock',
      phase: 'open',
      needs: {},
      provides: ref<void>('lock'),
      start(_needs, lifecycle) {
        for (const name of ['outer', 'inner']) {
          lifecycle.aroundPhase('boot', async (run) => {
            log.push(`take ${name}`);
            await run();
            log.push(`release ${name}`);
          });
        }
      },
    }) as Module;
    await compose([lock, fake('b1', 'boot', [], log), fake('b2', 'boot', [], log), fake('s', 'serve', [], log)], []);
    expect(log).toEqual([
      'take outer',
      'take inner',
      'start b1()',
      'start b2()',
      'release inner',
      'release outer',
      'start s()',
    ]);
  });

  it('stops what started when a start fails, and names the module that failed', async () => {
    const log: string[] = [];
    const failing = defineModule({
      name: 'broken',
      phase: 'boot',
      needs: {},
      provides: ref<void>('broken'),
      start() {
        throw new Error('no disk');
      },
    }) as Module;
    await expect(compose([fake('a', 'open', [], log), failing, fake('c', 'serve', [], log)], [])).rejects.toThrow(
      'module broken failed to start: no disk',
    );
    expect(log).toEqual(['start a()', 'stop a']);
  });

  it('runs every stop hook even when one fails, then throws the first failure', async () => {
    const log: string[] = [];
    const failing = defineModule({
      name: 'f',
      phase: 'open',
      needs: {},
      provides: ref<void>('f'),
      start(_needs, lifecycle) {
        lifecycle.onStop('listeners', () => {
          throw new Error('close failed');
        });
      },
    }) as Module;
    const composed = await compose([fake('a', 'open', [], log), failing], []);
    await expect(composed.stop()).rejects.toThrow('close failed');
    expect(log).toEqual(['start a()', 'stop a']);
  });
});
