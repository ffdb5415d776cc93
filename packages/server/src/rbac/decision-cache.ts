import { LRUCache } from 'lru-cache';
import type { Decision } from '../authz/authorizer.js';
import type { RequestInfo } from '../authz/request-info.js';
import type { ExpandedRoles } from '../authz/roles.js';

/** What a request line was decided as, for one set of expanded roles, in one generation of the models and routes. */
export interface Decided {
  generation: number;
  verb: string;
  decision: Decision;
  /** The request line's classification, kept so that later stages (request metrics) need not classify it again. */
  info?: RequestInfo;
}

export interface DecisionCacheStats {
  hits: number;
  misses: number;
  entries: number;
}

/**
 * The one authorization cache: the gate's decisions by role expansion and request line (method, canonical URL,
 * upgrade). Most requests repeat exactly, and classifying, resolving the owner and rendering a reason cost more than
 * the rest of the gate. The authorizer behind it is pure; this only remembers its answers.
 *
 * - A role or binding change makes new expansions (role-service.ts), so older entries are never read again and age out
 *   of the LRU; a model or route change bumps the generation, which entries are checked against.
 * - Bounded by entries, least recently used first out, so a caller sending endless distinct URLs cannot grow it.
 */
export class DecisionCache {
  private readonly entries: LRUCache<string, Decided>;
  private readonly ids = new WeakMap<ExpandedRoles, number>();
  private nextId = 0;
  private hits = 0;
  private misses = 0;

  constructor(maxEntries = 50_000) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  /** The cached decision of `line` for `expanded`, or what `decide` answers (then cached). */
  decide(
    expanded: ExpandedRoles,
    line: string,
    generation: number,
    decide: () => Omit<Decided, 'generation'>,
  ): Decided {
    const key = `${this.idOf(expanded)} ${line}`;
    const known = this.entries.get(key);
    if (known?.generation === generation) {
      this.hits++;
      return known;
    }
    this.misses++;
    const decided = { generation, ...decide() };
    this.entries.set(key, decided);
    return decided;
  }

  stats(): DecisionCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size };
  }

  private idOf(expanded: ExpandedRoles): number {
    let id = this.ids.get(expanded);
    if (id === undefined) this.ids.set(expanded, (id = this.nextId++));
    return id;
  }
}

/** Logs the cache's hit rate and size at debug level once a minute while it is in use; returns the stop function. */
export function logDecisionCache(
  cache: DecisionCache,
  logger: { debug(fields: object, message: string): void },
): () => void {
  let last = 0;
  const timer = setInterval(() => {
    const stats = cache.stats();
    const lookups = stats.hits + stats.misses;
    if (lookups === last) return;
    last = lookups;
    logger.debug({ ...stats, hitRate: lookups === 0 ? 0 : stats.hits / lookups }, 'authorization decision cache');
  }, 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
