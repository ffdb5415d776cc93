import { createHash } from 'node:crypto';
import type { ModelRegistry } from '../registry/model-registry.js';
import { groupVersionDocument, groupVersionKeys, openApiIndex, type Served, serviceDocument } from './documents.js';
import type { RouteShape } from './route-operations.js';

/** What the documents read of the runtime router: its routes, and a counter that grows with every change. */
export interface RouteSource {
  readonly version: number;
  list(): readonly RouteShape[];
}

/** A document serialized once, with the hash its ETag and `?hash=` carry. */
export interface BuiltDocument {
  bytes: Buffer;
  hash: string;
}

/**
 * The OpenAPI documents, built when first asked for and kept until a model is registered or unregistered or a route
 * is added or removed: a change only bumps a counter, so no request but a document's own ever pays for one.
 */
export class OpenApiDocuments {
  private modelChanges = 0;
  private builtAt = -1;
  private readonly built = new Map<string, BuiltDocument | null>();

  constructor(
    private readonly registry: ModelRegistry,
    private readonly router: RouteSource,
    /** Routes served outside the runtime router (sign-in, /version, /healthz), for the 3.1 document. */
    private readonly extraRoutes: readonly RouteShape[],
    private readonly hostVersion: string,
  ) {
    registry.onChange(() => void this.modelChanges++);
  }

  /** The 3.0 document of `apis/<group>/<version>` or `api/<version>`; undefined when nothing is served there. */
  groupVersion(key: string): BuiltDocument | undefined {
    return this.cached(`gv:${key}`, () => groupVersionDocument(this.served(), key, this.hostVersion)) ?? undefined;
  }

  /** `/openapi/v3`: every group version with the hash of its document. */
  index(): BuiltDocument {
    return this.cached('index', () => {
      const hashes = new Map<string, string>();
      for (const key of groupVersionKeys(this.served())) {
        const document = this.groupVersion(key);
        if (document) hashes.set(key, document.hash);
      }
      return openApiIndex(hashes);
    })!;
  }

  /** The 3.1 document of everything served. */
  service(): BuiltDocument {
    return this.cached('service', () => serviceDocument(this.served(), this.extraRoutes, this.hostVersion))!;
  }

  private cached(key: string, build: () => object | undefined): BuiltDocument | null {
    const stamp = this.modelChanges + this.router.version;
    if (stamp !== this.builtAt) {
      this.built.clear();
      this.builtAt = stamp;
    }
    let found = this.built.get(key);
    if (found === undefined) {
      const document = build();
      found = document === undefined ? null : serialize(document);
      this.built.set(key, found);
    }
    return found;
  }

  private served(): Served {
    return { models: this.registry.all().map((s) => s.model), routes: this.router.list() };
  }
}

function serialize(document: object): BuiltDocument {
  const bytes = Buffer.from(JSON.stringify(document));
  return { bytes, hash: createHash('sha256').update(bytes).digest('hex').toUpperCase() };
}
