import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/seeded-random.js';
import { classifyRequest, wantsWatch } from '../authz/request-info.js';
import { parseRequestTarget } from '../authz/request-target.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import { DynamicRouter } from './dynamic-router.js';
import { generatedRoutes } from './generated-routes.js';
import type { HttpContext } from './http-context.js';

/**
 * Property: for any request target, what the router would serve is exactly what the gate classified. Targets are
 * built from the pieces attackers combine (fragments, encoded separators, dot segments, stray `?` and `&`); each is
 * parsed once, as the server does, then classified (the gate) and routed (the dispatcher).
 */

// Route table only: the handlers are never called here, so they need no registry or objects.
const router = new DynamicRouter<HttpContext>();
router.add(generatedRoutes({} as ModelRegistry, {} as ObjectService));
const byRoute = new Map(
  router.list().map((route) => {
    const depth = route.path.split('/').length;
    const shape = route.path.endsWith(':plural')
      ? 'collection'
      : route.path.endsWith(':name')
        ? 'object'
        : 'subresource';
    return [route, { shape, depth }] as const;
  }),
);

/** The verb the gate must have seen for a route of this method and shape (a collection GET is list or watch). */
const VERB: Record<string, Record<string, string>> = {
  GET: { collection: 'list', object: 'get', subresource: 'get' },
  POST: { collection: 'create' },
  DELETE: { collection: 'deletecollection', object: 'delete' },
  PUT: { object: 'update', subresource: 'update' },
  PATCH: { object: 'patch', subresource: 'patch' },
};

const PIECES = [
  'apis',
  'api',
  'people.svc.run',
  'v1alpha1',
  'persons',
  'ann',
  'status',
  '-',
  '#',
  '#x',
  '#&watch=true',
  '#/status',
  '?watch=true',
  '?',
  '&',
  '=',
  'watch=true',
  'watch=1',
  'labelSelector=x',
  '%2F',
  '%2f',
  '%2e%2e',
  '..',
  '.',
  '%23',
  '%3F',
  ';',
  '%',
  '%zz',
  '%C0%AE',
  'a%20b',
  'person%73',
  '%61nn',
  'ANN',
  '%00',
  '\u0000',
  ' ',
  'http://h',
];
const SEPARATORS = ['/', '/', '/', '//', '', '?', '&', '#'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

function target(next: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  // Most targets start like a real resource path, so many reach a route; the rest is noise.
  const prefix = next() < 0.7 ? ['', 'apis', 'people.svc.run', 'v1alpha1', 'persons'].join('/') : '';
  let text = prefix;
  const count = 1 + Math.floor(next() * 4);
  for (let i = 0; i < count; i++) text += pick(SEPARATORS) + pick(PIECES);
  return text.startsWith('/') ? text : `/${text}`;
}

describe('the gate and the router read one request', () => {
  it('routes every generated target to exactly what the gate classified', () => {
    const next = seededRandom(20261123);
    let routed = 0;
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      const raw = target(next);
      const method = METHODS[i % METHODS.length]!;
      const parsed = parseRequestTarget(raw, 'h');
      if (!parsed.ok) {
        refused++;
        continue;
      }
      const info = classifyRequest({ method, target: parsed.target });
      const found = router.find(method === 'HEAD' ? 'GET' : method, parsed.target.routePath);
      if (!found) continue;
      routed++;
      const { shape } = byRoute.get(found.route)!;
      const { params } = found;
      const context = `${method} ${raw}`;
      expect(info.isResourceRequest, context).toBe(true);
      expect([params.group ?? '', params.version, params.plural], context).toEqual([
        info.apiGroup,
        info.apiVersion,
        info.resource,
      ]);
      expect([params.name ?? '', params.subresource ?? ''], context).toEqual([info.name, info.subresource]);
      const served = VERB[found.route.method]![shape]!;
      // The list handler streams exactly when the gate said watch: both read the one parsed query.
      const streams = method === 'GET' && shape === 'collection' && wantsWatch(parsed.target.query);
      expect(info.verb, context).toBe(streams ? 'watch' : served);
    }
    // The property says something only if both kinds of target were common.
    expect(routed).toBeGreaterThan(2_000);
    expect(refused).toBeGreaterThan(2_000);
  });
});
