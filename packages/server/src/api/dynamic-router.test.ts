import { describe, expect, it } from 'vitest';
import type { Owner } from '../objects/owner.js';
import { type DynamicRoute, DynamicRouter } from './dynamic-router.js';

type Ctx = Record<string, never>;
const route = (
  method: string,
  path: string,
  owner: Owner = 'core',
  extra: Partial<DynamicRoute<Ctx>> = {},
): DynamicRoute<Ctx> => ({
  method,
  path,
  owner,
  handler: () => undefined,
  ...extra,
});

/** The method and path of the route found, or null. */
const found = (router: DynamicRouter<Ctx>, method: string, path: string) => {
  const hit = router.find(method, path);
  return hit && `${hit.route.method} ${hit.route.path}`;
};

describe('DynamicRouter: adding routes', () => {
  it('adds a batch whole and keeps the list in the order added', () => {
    const router = new DynamicRouter<Ctx>();
    router.add([route('GET', '/a'), route('POST', '/a')]);
    router.add([route('GET', '/b', 'plugin:people')]);
    expect(router.list().map((r) => `${r.method} ${r.path} ${r.owner}`)).toEqual([
      'GET /a core',
      'POST /a core',
      'GET /b plugin:people',
    ]);
  });

  it('adds nothing of a batch when one route clashes with a route already there', () => {
    const router = new DynamicRouter<Ctx>();
    router.add([route('GET', '/a/:name')]);
    const version = router.version;
    expect(() => router.add([route('GET', '/b', 'plugin:people'), route('GET', '/a/:name', 'plugin:people')])).toThrow(
      /^route GET \/a\/:name of plugin:people clashes with an existing route: /,
    );
    expect(router.list()).toHaveLength(1);
    expect(found(router, 'GET', '/b')).toBeNull();
    expect(router.version).toBe(version);
  });

  it('adds nothing of a batch that clashes with itself', () => {
    const router = new DynamicRouter<Ctx>();
    expect(() => router.add([route('GET', '/x'), route('GET', '/x')])).toThrow(/clashes/);
    expect(router.list()).toEqual([]);
    expect(found(router, 'GET', '/x')).toBeNull();
  });
});

describe('DynamicRouter: removing an owner', () => {
  it('removes that owner’s routes only and says how many', () => {
    const router = new DynamicRouter<Ctx>();
    router.add([
      route('GET', '/core'),
      route('GET', '/people', 'plugin:people'),
      route('POST', '/people', 'plugin:people'),
    ]);
    expect(router.removeOwner('plugin:people')).toBe(2);
    expect(router.list().map((r) => r.path)).toEqual(['/core']);
    expect(found(router, 'GET', '/people')).toBeNull();
    expect(found(router, 'GET', '/core')).toBe('GET /core');
  });

  it('frees the paths for another owner', () => {
    const router = new DynamicRouter<Ctx>();
    router.add([route('GET', '/shared', 'plugin:a')]);
    router.removeOwner('plugin:a');
    expect(() => router.add([route('GET', '/shared', 'plugin:b')])).not.toThrow();
    expect(router.find('GET', '/shared')?.route.owner).toBe('plugin:b');
  });
});

describe('DynamicRouter: version', () => {
  it('grows with every change and only then', () => {
    const router = new DynamicRouter<Ctx>();
    const steps: Array<[string, () => void, number]> = [
      ['new router', () => undefined, 0],
      ['add', () => router.add([route('GET', '/a', 'plugin:x')]), 1],
      ['add an empty batch (counted as a change)', () => router.add([]), 2],
      ['remove an owner with routes', () => router.removeOwner('plugin:x'), 3],
      ['remove an owner without routes', () => router.removeOwner('plugin:nobody'), 3],
      ['a refused add', () => expect(() => router.add([route('GET', '/b'), route('GET', '/b')])).toThrow(), 3],
      ['find', () => router.find('GET', '/a'), 3],
    ];
    for (const [step, act, want] of steps) {
      act();
      expect(router.version, step).toBe(want);
    }
  });
});

describe('DynamicRouter: finding a route', () => {
  const router = new DynamicRouter<Ctx>();
  router.add([
    route('GET', '/apis/:group/:version/:plural'),
    route('GET', '/apis/:group/:version/:plural/:name'),
    route('PUT', '/apis/:group/:version/:plural/:name/status'),
    route('GET', '/apis/api.console.svc.run/v1alpha1/plugins'),
    route('GET', '/healthz'),
    route('GET', '/watch/:plural', 'core', { websocket: true }),
  ]);

  it.each([
    {
      name: 'a collection',
      method: 'GET',
      path: '/apis/people.svc.run/v1/persons',
      want: 'GET /apis/:group/:version/:plural',
    },
    {
      name: 'an object',
      method: 'GET',
      path: '/apis/people.svc.run/v1/persons/ann',
      want: 'GET /apis/:group/:version/:plural/:name',
    },
    {
      name: 'a subresource',
      method: 'PUT',
      path: '/apis/g/v1/p/ann/status',
      want: 'PUT /apis/:group/:version/:plural/:name/status',
    },
    {
      name: 'a static path before a parametric one',
      method: 'GET',
      path: '/apis/api.console.svc.run/v1alpha1/plugins',
      want: 'GET /apis/api.console.svc.run/v1alpha1/plugins',
    },
    { name: 'a trailing slash, ignored', method: 'GET', path: '/healthz/', want: 'GET /healthz' },
    {
      name: 'a trailing slash after a parameter, ignored',
      method: 'GET',
      path: '/apis/g/v1/p/ann/',
      want: 'GET /apis/:group/:version/:plural/:name',
    },
    { name: 'another method on a known path', method: 'DELETE', path: '/healthz', want: null },
    { name: 'HEAD (the dispatcher asks for GET instead)', method: 'HEAD', path: '/healthz', want: null },
    { name: 'another case', method: 'GET', path: '/HEALTHZ', want: null },
    { name: 'a path deeper than any route', method: 'GET', path: '/apis/g/v1/p/ann/status/x', want: null },
    { name: 'an unknown path', method: 'GET', path: '/nowhere', want: null },
  ])('$name: $want', ({ method, path, want }) => expect(found(router, method, path)).toBe(want));

  it('hands back the path parameters, decoded', () => {
    expect(router.find('GET', '/apis/people.svc.run/v1/persons/ann%20lee')?.params).toEqual({
      group: 'people.svc.run',
      version: 'v1',
      plural: 'persons',
      name: 'ann lee',
    });
  });

  it('takes a parameter of up to 1000 characters', () => {
    expect(found(router, 'GET', `/apis/g/v1/p/${'a'.repeat(1000)}`)).toBe('GET /apis/:group/:version/:plural/:name');
    expect(found(router, 'GET', `/apis/g/v1/p/${'a'.repeat(1001)}`)).toBeNull();
  });

  it('hands back the route as added, with its owner and websocket flag', () => {
    expect(router.find('GET', '/watch/persons')?.route).toMatchObject({ owner: 'core', websocket: true });
  });
});
