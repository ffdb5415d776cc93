import type { RequestTarget } from './request-target.js';

/**
 * Classifies a request from its method and parsed target alone, before any body is read: authorization looks only at
 * this record, and the router routes the same parsed target. Shapes follow the seed:
 * `/api/<version>/<resource>[/<name>[/<subresource>]]` (3 to 5 segments) and
 * `/apis/<group>/<version>/<resource>[/<name>[/<subresource>]]` (4 to 6). Everything else is a non-resource request
 * whose verb is the lowercased method.
 *
 * Decisions the seed leaves open, fixed here so every caller agrees:
 * - The target was parsed once (request-target.ts): empty segments dropped, segments percent-decoded, and targets that
 *   could be read two ways (a `#`, dot segments, an encoded `/`, malformed encoding) refused before classification.
 * - Too few or too many segments make a non-resource request; nothing past the subresource is interpreted.
 * - `POST <plural>/<name>` (a concrete name, no subresource) is `create` on `<plural>` with that name, as Kubernetes
 *   does. The generated routes answer it with 404/405, so allowing it opens nothing there; a custom action route
 *   (`POST <mapping>/<action>`) can be narrowed with `resourceNames: [<action>]`.
 * - The name `-` ("no object", or "myself" in `users/-/permissions`) is kept literally, so `resourceNames: ['-']`
 *   narrows a rule to those routes.
 * - `watch` needs a collection path and a GET: a GET with a name stays `get` whatever its query or upgrade header
 *   says, and a HEAD is never a watch, because that is what the server will serve.
 * - HEAD is classified like GET (the HTTP layer answers HEAD with the GET handler, without a body).
 */

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The canonical path (see above). */
  path: string;
  verb: string;
  /** Set for resource requests only. */
  apiPrefix?: 'api' | 'apis';
  /** `''` for the core group under `/api`, and for non-resource requests. */
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /** For resource requests the segments after the version (`[resource, name?, subresource?]`); else `[]`. */
  parts: string[];
}

export interface RequestInput {
  method: string;
  target: Pick<RequestTarget, 'segments' | 'path' | 'query'>;
  isWebSocket?: boolean;
}

/** `watch=true` or `watch=1` (a repeated parameter counts when any value says so). The watch handler uses this too. */
export function wantsWatch(query: Record<string, unknown> | undefined): boolean {
  const value = query?.['watch'];
  const values = Array.isArray(value) ? value : [value];
  return values.some((v) => v === true || v === 'true' || v === '1' || v === 1);
}

export function classifyRequest(input: RequestInput): RequestInfo {
  const method = input.method.toUpperCase();
  const { segments, path } = input.target;
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  const shape = resourceShape(segments);
  if (shape === undefined) return nonResource;
  const [resource = '', name = '', subresource = ''] = shape.parts;
  return {
    isResourceRequest: true,
    path,
    verb: resourceVerb(method, name, input),
    apiPrefix: shape.apiPrefix,
    apiGroup: shape.apiGroup,
    apiVersion: shape.apiVersion,
    resource,
    subresource,
    name,
    parts: shape.parts,
  };
}

interface Shape {
  apiPrefix: 'api' | 'apis';
  apiGroup: string;
  apiVersion: string;
  parts: string[];
}

/** The seed's two shapes, or undefined when the segments fit neither. */
function resourceShape(segments: readonly string[]): Shape | undefined {
  const [prefix, ...rest] = segments;
  if (prefix === 'api' && segments.length >= 3 && segments.length <= 5) {
    const [apiVersion = '', ...parts] = rest;
    return { apiPrefix: 'api', apiGroup: '', apiVersion, parts };
  }
  if (prefix === 'apis' && segments.length >= 4 && segments.length <= 6) {
    const [apiGroup = '', apiVersion = '', ...parts] = rest;
    return { apiPrefix: 'apis', apiGroup, apiVersion, parts };
  }
  return undefined;
}

function resourceVerb(method: string, name: string, input: RequestInput): string {
  switch (method) {
    case 'GET':
      if (name !== '') return 'get';
      return input.isWebSocket === true || wantsWatch(input.target.query) ? 'watch' : 'list';
    case 'HEAD':
      return name !== '' ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return name !== '' ? 'delete' : 'deletecollection';
    default:
      // Unknown methods keep their own name, so only a `*` verb can allow them.
      return method.toLowerCase();
  }
}
