import { describe, expect, it } from 'vitest';
import { classifyRequest } from '../authz/request-info.js';
import { parseRequestTarget } from '../authz/request-target.js';
import {
  type KnownTargets,
  namesKnownResource,
  nonResourcePath,
  requestVerb,
  spellsLabels,
  UNKNOWN_TARGET,
} from './request-labels.js';

function infoOf(method: string, url: string, isWebSocket = false) {
  const parsed = parseRequestTarget(url);
  if (!parsed.ok) throw new Error(parsed.problem);
  return classifyRequest({ method, target: parsed.target, isWebSocket });
}

const PERSONS = '/apis/people.svc.run/v1alpha1/persons';

describe('requestVerb: the verb as the Kubernetes API server reports it', () => {
  const cases: Array<{ method: string; url: string; mediaType?: string; webSocket?: boolean; verb: string }> = [
    { method: 'GET', url: `${PERSONS}/ann`, verb: 'GET' },
    { method: 'HEAD', url: `${PERSONS}/ann`, verb: 'GET' },
    { method: 'GET', url: PERSONS, verb: 'LIST' },
    { method: 'HEAD', url: PERSONS, verb: 'LIST' },
    { method: 'GET', url: `${PERSONS}?watch=true`, verb: 'WATCH' },
    { method: 'GET', url: `${PERSONS}?watch=1`, verb: 'WATCH' },
    { method: 'GET', url: PERSONS, webSocket: true, verb: 'WATCH' },
    { method: 'POST', url: PERSONS, verb: 'POST' },
    { method: 'PUT', url: `${PERSONS}/ann`, verb: 'PUT' },
    { method: 'PUT', url: `${PERSONS}/ann/status`, verb: 'PUT' },
    { method: 'PATCH', url: `${PERSONS}/ann`, mediaType: 'application/merge-patch+json', verb: 'PATCH' },
    { method: 'PATCH', url: `${PERSONS}/ann`, mediaType: 'application/apply-patch+yaml', verb: 'APPLY' },
    { method: 'DELETE', url: `${PERSONS}/ann`, verb: 'DELETE' },
    { method: 'DELETE', url: PERSONS, verb: 'DELETE' },
    { method: 'OPTIONS', url: PERSONS, verb: 'other' },
    { method: 'GET', url: '/healthz', verb: 'GET' },
    { method: 'HEAD', url: '/healthz', verb: 'GET' },
    { method: 'POST', url: '/login', verb: 'POST' },
    { method: 'PATCH', url: '/somewhere', mediaType: 'application/apply-patch+yaml', verb: 'PATCH' },
    { method: 'OPTIONS', url: '/healthz', verb: 'other' },
  ];
  it.each(cases)('$method $url ($mediaType) is $verb', ({ method, url, mediaType = '', webSocket, verb }) => {
    expect(requestVerb(infoOf(method, url, webSocket), method, () => mediaType)).toBe(verb);
  });
});

describe('spellsLabels: whether a route spells out the segments labels are taken from', () => {
  const cases: Array<{ pattern: string; url: string; spells: boolean }> = [
    {
      pattern: '/apis/api.console.svc.run/v1alpha1/users/-/console-events',
      url: '/apis/api.console.svc.run/v1alpha1/users/-/console-events',
      spells: true,
    },
    { pattern: '/apis/g.example/v1/things/:name/run', url: '/apis/g.example/v1/things/a/run', spells: true },
    { pattern: '/apis/g.example/v1/things', url: '/apis/g.example/v1/things', spells: true },
    { pattern: '/api/v1alpha1/users/:name/permissions', url: '/api/v1alpha1/users/ann/permissions', spells: true },
    { pattern: '/apis/:group/:version/:plural', url: '/apis/made.up/v1/widgets', spells: false },
    { pattern: '/apis/g.example/v1/:plural', url: '/apis/g.example/v1/widgets', spells: false },
    { pattern: '/apis/g.example/v1/things/:name/:action', url: '/apis/g.example/v1/things/a/anything', spells: false },
    { pattern: '/apis/g.example/v1/things/*', url: '/apis/g.example/v1/things/a/b', spells: false },
    { pattern: '/api/:version/:plural', url: '/api/v1/roles', spells: false },
  ];
  it.each(cases)('$pattern for $url: $spells', ({ pattern, url, spells }) => {
    expect(spellsLabels(pattern, infoOf('GET', url))).toBe(spells);
  });
});

describe('namesKnownResource: label values only from served models and spelled-out routes', () => {
  const known: KnownTargets = {
    serves: (group, version, resource, subresource) =>
      group === 'people.svc.run' &&
      version === 'v1alpha1' &&
      resource === 'persons' &&
      ['', 'status'].includes(subresource),
    routePattern: () => undefined,
  };
  const cases: Array<{ url: string; route?: string; knownNames: boolean }> = [
    { url: PERSONS, knownNames: true },
    { url: `${PERSONS}/ann/status`, knownNames: true },
    { url: `${PERSONS}/ann/made-up`, route: '/apis/:group/:version/:plural/:name/:subresource', knownNames: false },
    { url: '/apis/made.up/v1/widgets', route: '/apis/:group/:version/:plural', knownNames: false },
    { url: '/apis/made.up/v1/widgets', knownNames: false },
    { url: '/apis/g.example/v1/things/a/run', route: '/apis/g.example/v1/things/:name/run', knownNames: true },
  ];
  it.each(cases)('$url (route $route): $knownNames', ({ url, route, knownNames }) => {
    expect(namesKnownResource(infoOf('GET', url), () => route, known)).toBe(knownNames);
  });
});

describe('nonResourcePath: the pattern of the route that answered, or unknown', () => {
  const cases: Array<{ routePattern?: string; frameworkUrl?: string; path: string }> = [
    { routePattern: '/apis/:group/:version', frameworkUrl: '/apis/*', path: '/apis/:group/:version' },
    { frameworkUrl: '/healthz', path: '/healthz' },
    { frameworkUrl: '/apis', path: '/apis' },
    { frameworkUrl: '/apis/*', path: UNKNOWN_TARGET },
    { path: UNKNOWN_TARGET },
  ];
  it.each(cases)('router $routePattern, framework $frameworkUrl: $path', ({ routePattern, frameworkUrl, path }) => {
    expect(nonResourcePath(routePattern, frameworkUrl)).toBe(path);
  });
});
