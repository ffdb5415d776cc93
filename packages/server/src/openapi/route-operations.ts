/**
 * The routes of the runtime router that are not a model's generated routes (plugins' custom routes, the features' own
 * routes, discovery) as OpenAPI operations, with the schemas their declarations give (RouteDoc). Pure.
 */
import type { RouteDoc } from '../api/dynamic-router.js';
import type { DocumentPart } from './model-operations.js';
import { componentKey, type Dialect, schemaComponents } from './schema-dialects.js';
import { errorResponses, SECURED } from './shared-components.js';

/** What a document needs of a route (DynamicRoute has it). */
export interface RouteShape {
  method: string;
  path: string;
  owner: string;
  public?: boolean;
  doc?: RouteDoc;
  /** The route honours `dryRun=All` (documented as a query parameter); every other write refuses it. */
  dryRun?: boolean;
}

const DRY_RUN_PARAMETER = {
  name: 'dryRun',
  in: 'query',
  required: false,
  description: 'All: validate and answer the request without carrying it out.',
  schema: { type: 'string', enum: ['All'] },
};

/** The router's pattern for every model's generated routes: expanded per model instead (model-operations.ts). */
export function isGeneratedRoute(route: Pick<RouteShape, 'path'>): boolean {
  return route.path.includes('/:plural');
}

/** The group and version a route is served under (`''` for the core group), or undefined outside /api and /apis. */
export function groupVersionOf(path: string): { group: string; version: string } | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  const concrete = (s: string | undefined) => s !== undefined && !s.startsWith(':') && s !== '*';
  if (segments[0] === 'apis' && concrete(segments[1]) && concrete(segments[2])) {
    return { group: segments[1]!, version: segments[2]! };
  }
  if (segments[0] === 'api' && concrete(segments[1])) return { group: '', version: segments[1]! };
  return undefined;
}

/** find-my-way's `/persons/:name` and `/docs/*` as OpenAPI's `/persons/{name}` and `/docs/{path}`. Pure. */
export function openApiPath(path: string): { path: string; parameters: string[] } {
  const parameters: string[] = [];
  const converted = path
    .split('/')
    .map((segment) => {
      if (segment === '*') {
        parameters.push('path');
        return '{path}';
      }
      if (!segment.startsWith(':')) return segment;
      const name = segment.slice(1).replace(/\(.*$/, '');
      parameters.push(name);
      return `{${name}}`;
    })
    .join('/');
  return { path: converted || '/', parameters };
}

/** Methods whose body a route may describe (and custom routes check). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export function routesPart(routes: readonly RouteShape[], dialect: Dialect): DocumentPart {
  const part: DocumentPart = { paths: {}, components: {} };
  const taken = new Set<string>();
  for (const route of routes) {
    const { path, parameters } = openApiPath(route.path);
    const operationId = unique(componentKey(`${route.method.toLowerCase()}${camel(path)}`), taken);
    const doc = route.doc ?? {};
    const schemaRef = (schema: unknown, suffix: string) => {
      const name = `route.${operationId}.${suffix}`;
      Object.assign(part.components, schemaComponents(schema, name, dialect));
      return { $ref: `#/components/schemas/${name}` };
    };
    const success = String(doc.status ?? (doc.response === undefined ? 200 : '2XX'));
    const operation: Record<string, unknown> = {
      operationId,
      summary: doc.summary ?? `${route.method} ${path}`,
      ...(doc.description === undefined ? {} : { description: doc.description }),
      tags: [tagOf(route)],
      ...(parameters.length === 0 && !documentsDryRun(route)
        ? {}
        : {
            parameters: [
              ...parameters.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
              ...(documentsDryRun(route) ? [DRY_RUN_PARAMETER] : []),
            ],
          }),
      ...(doc.requestBody === undefined || !BODY_METHODS.has(route.method)
        ? {}
        : {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: schemaRef(doc.requestBody, 'Request') } },
            },
          }),
      responses: {
        [success]: {
          description: 'Success',
          ...(doc.response === undefined
            ? {}
            : { content: { 'application/json': { schema: schemaRef(doc.response, 'Response') } } }),
        },
        ...errorResponses(errorsOf(route, parameters.length > 0)),
      },
      security: route.public ? [] : SECURED,
    };
    part.paths[path] = { ...part.paths[path], [route.method.toLowerCase()]: operation };
  }
  return part;
}

/**
 * The 4xx answers a route can give: a bad target or Host (400) anywhere; the gate's 401 and 403 unless it is public;
 * 404 for what a path parameter names; a body's 413 and 415 on writes; and those its declaration adds (409, 429).
 */
function errorsOf(route: RouteShape, hasParameters: boolean): number[] {
  return [
    400,
    ...(route.public ? [] : [401, 403]),
    ...(hasParameters ? [404] : []),
    ...(BODY_METHODS.has(route.method) ? [413, 415] : []),
    ...(route.doc?.errors ?? []),
  ];
}

function documentsDryRun(route: RouteShape): boolean {
  return route.dryRun === true && route.method !== 'GET';
}

function tagOf(route: RouteShape): string {
  const gv = groupVersionOf(route.path);
  if (gv) return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
  return route.public ? 'discovery' : route.owner;
}

/** `id`, or `id2`, `id3`… when taken: operation ids are unique in a document. */
function unique(id: string, taken: Set<string>): string {
  let candidate = id;
  for (let n = 2; taken.has(candidate); n++) candidate = `${id}${n}`;
  taken.add(candidate);
  return candidate;
}

/** `/users/-/permissions` as `UsersSelfPermissions`: the name `-` ("myself", "no object") is a word of its own. */
function camel(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment === '-' ? 'self' : segment))
    .join('/')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}
