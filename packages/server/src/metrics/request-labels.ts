/**
 * The labels of `apiserver_request_total` and `apiserver_request_duration_seconds`, as Kubernetes' API server sets
 * them (k8s.io/apiserver `endpoints/metrics`), from the request's classification (authz/request-info.ts):
 *
 * - `verb`: upper case, as the API server reports it: `GET` (one object), `LIST`, `WATCH`, `POST`, `PUT`, `PATCH`,
 *   `APPLY` (a PATCH in server-side apply's media type), `DELETE` (one object or a collection); a non-resource request
 *   its method (`HEAD` as `GET`); any other method `other`.
 * - `group` (empty for the core group), `version`, `resource` (the plural) and `subresource` of a resource request;
 *   for a non-resource request those are empty and `subresource` is its path, as the API server's `/healthz` is.
 *
 * Label values are bounded: a resource request is labelled with its own names only when they name a served model (and
 * its `status`) or a route spelling them out; a non-resource request with the pattern of the route that answered it
 * (`/apis/:group/:version`, not the group asked for). Anything else, a 404 to a made-up path or a 401 to one, is
 * counted under the one fixed `subresource="unknown"`, so a client cannot make up series.
 */
import { APPLY_TYPE } from '../api/apply-body.js';
import type { RequestInfo } from '../authz/request-info.js';

export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
}

/** The `subresource` of a request naming no served model, route or path: its group, version and resource are empty. */
export const UNKNOWN_TARGET = 'unknown';

/** The verbs of a request that Kubernetes' metrics call `other`: they never name an invented method. */
export const OTHER_VERB = 'other';

/** Kubernetes' metric verb by the authorization verb a resource request was classified as. */
const RESOURCE_VERBS = new Map([
  ['get', 'GET'],
  ['list', 'LIST'],
  ['watch', 'WATCH'],
  ['create', 'POST'],
  ['update', 'PUT'],
  ['patch', 'PATCH'],
  ['delete', 'DELETE'],
  ['deletecollection', 'DELETE'],
]);

/** A non-resource request's metric verb by its method. */
const NON_RESOURCE_VERBS = new Map([
  ['GET', 'GET'],
  ['HEAD', 'GET'],
  ['POST', 'POST'],
  ['PUT', 'PUT'],
  ['PATCH', 'PATCH'],
  ['DELETE', 'DELETE'],
]);

/** `mediaType`: the request's content type without parameters, lowercased (only a PATCH's is read). */
export function requestVerb(info: RequestInfo, method: string, mediaType: () => string): string {
  if (!info.isResourceRequest) return NON_RESOURCE_VERBS.get(method) ?? OTHER_VERB;
  const verb = RESOURCE_VERBS.get(info.verb) ?? OTHER_VERB;
  return verb === 'PATCH' && mediaType() === APPLY_TYPE ? 'APPLY' : verb;
}

/** What besides the request itself says which names are real: the served models and the runtime router's routes. */
export interface KnownTargets {
  /** Whether the model at group/version/resource is served, with `subresource` ('' for none). */
  serves(group: string, version: string, resource: string, subresource: string): boolean;
  /** The pattern of the runtime router's route for a method and canonical path (`/apis/:group/:version`), if any. */
  routePattern(method: string, routePath: string): string | undefined;
}

/** Whether a resource request's own group, version, resource and subresource may be label values. */
export function namesKnownResource(info: RequestInfo, routePattern: () => string | undefined, known: KnownTargets) {
  if (known.serves(info.apiGroup, info.apiVersion, info.resource, info.subresource)) return true;
  const pattern = routePattern();
  return pattern !== undefined && spellsLabels(pattern, info);
}

/**
 * Whether a route's pattern spells out, literally, every segment of the request a label is taken from: a parameter
 * there (`/apis/:group/…`) would let a client pick the label's value.
 */
export function spellsLabels(pattern: string, info: RequestInfo): boolean {
  const spelled = pattern.split('/').filter((segment) => segment !== '');
  // Where group, version, resource and subresource stand among the request's segments (`apis/<g>/<v>/<r>/<n>/<s>`).
  const labelled = info.apiPrefix === 'apis' ? [1, 2, 3, 5] : [1, 2, 4];
  const length = (info.apiPrefix === 'apis' ? 3 : 2) + info.parts.length;
  return labelled.every((at) => {
    if (at >= length) return true;
    const segment = spelled[at];
    return segment !== undefined && !segment.includes(':') && !segment.includes('*');
  });
}

/**
 * The `subresource` of a non-resource request: the pattern of the route that answered it, the runtime router's if it
 * has one, else the HTTP framework's (`/healthz`); a catch-all's (`/apis/*`) found nothing, so it is unknown.
 */
export function nonResourcePath(routePattern: string | undefined, frameworkUrl: string | undefined): string {
  if (routePattern !== undefined) return routePattern;
  if (frameworkUrl === undefined || frameworkUrl.includes('*')) return UNKNOWN_TARGET;
  return frameworkUrl;
}
