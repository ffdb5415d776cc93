/**
 * The OpenAPI documents, assembled from the models and routes served (docs/api.md "OpenAPI"). Pure: the same inputs
 * give the same document, key order included, so a document's hash changes only when what it says does.
 *
 * - One OpenAPI 3.0 document per group version (`/openapi/v3/apis/<group>/<version>`), the Kubernetes API server's
 *   dialect and shape: what kubectl and client-go read.
 * - One OpenAPI 3.1 document of everything served (`/openapi.json`), for svc's own clients and the `/docs` page.
 */
import { type DocumentPart, type ModelShape, modelPart } from './model-operations.js';
import { groupVersionOf, isGeneratedRoute, type RouteShape, routesPart } from './route-operations.js';
import type { Dialect } from './schema-dialects.js';
import { ERROR_RESPONSES, SECURED, SECURITY_SCHEMES, SHARED_SCHEMAS } from './shared-components.js';

export interface Served {
  models: readonly ModelShape[];
  /** Every route of the runtime router (generated ones are skipped: each model's are described instead). */
  routes: readonly RouteShape[];
}

/** `apis/<group>/<version>` or `api/<version>`: the key of a group version in the index. */
export function groupVersionKey(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** Every group version something is served in, sorted. */
export function groupVersionKeys(served: Served): string[] {
  const keys = new Set(served.models.map((m) => groupVersionKey(m.group, m.version)));
  for (const route of served.routes) {
    const gv = isGeneratedRoute(route) ? undefined : groupVersionOf(route.path);
    if (gv) keys.add(groupVersionKey(gv.group, gv.version));
  }
  return [...keys].sort();
}

/** The 3.0 document of one group version, or undefined when nothing is served there. */
export function groupVersionDocument(served: Served, key: string, hostVersion: string): object | undefined {
  const models = served.models.filter((m) => groupVersionKey(m.group, m.version) === key);
  const routes = served.routes.filter((r) => {
    const gv = isGeneratedRoute(r) ? undefined : groupVersionOf(r.path);
    return gv !== undefined && groupVersionKey(gv.group, gv.version) === key;
  });
  if (models.length === 0 && routes.length === 0) return undefined;
  const part = combine(models, routes, '3.0');
  return {
    openapi: '3.0.0',
    info: { title: `svc ${key.replace(/^apis?\//, '')}`, version: hostVersion, license: LICENSE },
    servers: SERVERS,
    paths: part.paths,
    components: { schemas: part.schemas, responses: part.responses, securitySchemes: SECURITY_SCHEMES },
    security: SECURED,
  };
}

/** The index kubectl and client-go read first: each group version and where its document is, with its hash. */
export function openApiIndex(hashes: ReadonlyMap<string, string>): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, hash] of [...hashes].sort(([a], [b]) => a.localeCompare(b))) {
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}

/** The 3.1 document of everything served, the routes outside the runtime router (`extra`) included. */
export function serviceDocument(served: Served, extra: readonly RouteShape[], hostVersion: string): object {
  const part = combine(served.models, [...extra, ...served.routes.filter((r) => !isGeneratedRoute(r))], '3.1');
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc',
      version: hostVersion,
      license: LICENSE,
      description:
        'Every route this server serves now: the generated REST API of each model, the plugins’ custom APIs, ' +
        'users, tokens, roles and plugin management, discovery and sign-in. Errors are application/problem+json.',
    },
    servers: SERVERS,
    paths: part.paths,
    components: { schemas: part.schemas, responses: part.responses, securitySchemes: SECURITY_SCHEMES },
    security: SECURED,
  };
}

const LICENSE = { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' };
/** Relative to where the document was read: the server that serves it. */
const SERVERS = [{ url: '/' }];

interface Combined {
  paths: DocumentPart['paths'];
  schemas: DocumentPart['components'];
  responses: DocumentPart['components'];
}

function combine(models: readonly ModelShape[], routes: readonly RouteShape[], dialect: Dialect): Combined {
  const paths: DocumentPart['paths'] = {};
  const components: DocumentPart['components'] = { ...SHARED_SCHEMAS };
  const sorted = [...models].sort(
    (a, b) => a.apiVersion.localeCompare(b.apiVersion) || a.plural.localeCompare(b.plural),
  );
  for (const part of [...sorted.map((m) => modelPart(m, dialect)), routesPart(routes, dialect)]) {
    for (const [path, item] of Object.entries(part.paths)) paths[path] = { ...paths[path], ...item };
    Object.assign(components, part.components);
  }
  // Only the shared schemas and responses the operations use, so a document names nothing it does not need.
  const used = referenced(paths, { schemas: components, responses: ERROR_RESPONSES });
  const keep = (kind: string, all: DocumentPart['components']) =>
    sortKeys(Object.fromEntries(Object.entries(all).filter(([name]) => used.has(`${kind}/${name}`))));
  return {
    paths: sortKeys(paths),
    schemas: keep('schemas', components),
    responses: keep('responses', ERROR_RESPONSES),
  };
}

/** `schemas/<name>` and `responses/<name>` of every `#/components/…` reference reachable from `root`. */
function referenced(root: unknown, components: Record<string, Record<string, unknown>>): Set<string> {
  const found = new Set<string>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...node);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')) {
          const name = value.slice('#/components/'.length);
          if (found.has(name)) continue;
          found.add(name);
          const [kind, ...rest] = name.split('/');
          pending.push(components[kind!]?.[rest.join('/')]);
        } else pending.push(value);
      }
    }
  }
  return found;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
