import { describe, expect, it } from 'vitest';
import type { ExpandedRoles } from '../authz/roles.js';
import { DecisionCache } from './decision-cache.js';

const expansion = (): ExpandedRoles => ({ roleNames: new Set(), rules: [] }) as unknown as ExpandedRoles;
const allow = (verb: string) => () => ({ verb, decision: { allowed: true, reason: `allowed ${verb}` } });

describe('the decision cache', () => {
  it('answers a repeated line from the cache, and counts hits and misses', () => {
    const cache = new DecisionCache();
    const roles = expansion();
    let computed = 0;
    const decide = () => {
      computed++;
      return allow('get')();
    };
    cache.decide(roles, 'GET /a', 1, decide);
    cache.decide(roles, 'GET /a', 1, decide);
    cache.decide(roles, 'GET /a', 1, decide);
    expect(computed).toBe(1);
    expect(cache.stats()).toEqual({ hits: 2, misses: 1, entries: 1 });
  });

  it('decides again in a new generation (a model or route changed)', () => {
    const cache = new DecisionCache();
    const roles = expansion();
    cache.decide(roles, 'GET /a', 1, allow('get'));
    expect(cache.decide(roles, 'GET /a', 2, allow('list')).verb).toBe('list');
    expect(cache.stats()).toEqual({ hits: 0, misses: 2, entries: 1 });
  });

  it('keeps the decisions of different expansions apart', () => {
    const cache = new DecisionCache();
    cache.decide(expansion(), 'GET /a', 1, allow('get'));
    expect(cache.decide(expansion(), 'GET /a', 1, allow('list')).verb).toBe('list');
    expect(cache.stats().entries).toBe(2);
  });

  it('holds at most its bound, dropping the least recently used first', () => {
    const cache = new DecisionCache(2);
    const roles = expansion();
    cache.decide(roles, 'GET /a', 1, allow('a'));
    cache.decide(roles, 'GET /b', 1, allow('b'));
    cache.decide(roles, 'GET /a', 1, allow('never'));
    cache.decide(roles, 'GET /c', 1, allow('c'));
    expect(cache.stats().entries).toBe(2);
    expect(cache.decide(roles, 'GET /a', 1, allow('again')).verb).toBe('a');
    expect(cache.decide(roles, 'GET /b', 1, allow('b again')).verb).toBe('b again');
  });
});
