import type { ExtensionObject, ListEnvelope } from '@svc/client';
import { client } from '@svc/console-shared';
import type { RouteLocationNormalized } from 'vue-router';
import { type BrowsableModel, groupOfSegment, loadModels } from './models.js';
import { stateOf } from './selectors.js';

interface Prefetched {
  key: string;
  models: Promise<BrowsableModel[]>;
  page: Promise<ListEnvelope<ExtensionObject>>;
}

let pending: Prefetched | undefined;

/**
 * Asks for a model page's data as soon as the route is entered, while its code is still loading: the models the user
 * may browse and the first page of objects, both at once, so the page renders a round trip sooner.
 */
export function prefetchModelPage(to: RouteLocationNormalized): void {
  const state = stateOf(to.query);
  const ref = {
    group: groupOfSegment(String(to.params.group)),
    version: String(to.params.version),
    plural: String(to.params.plural),
  };
  const prefetched: Prefetched = {
    key: to.fullPath,
    models: loadModels(),
    page: client.resource(ref).list({
      page: state.page,
      size: state.size,
      sort: state.sort,
      labelSelector: state.labelSelector,
      fieldSelector: state.fieldSelector,
    }),
  };
  // Whoever takes them handles failures; untaken, they must not be unhandled rejections.
  prefetched.models.catch(() => undefined);
  prefetched.page.catch(() => undefined);
  pending = prefetched;
}

/** The data prefetched for this route, once (undefined when none was, or it was for another). */
export function takePrefetched(key: string): Omit<Prefetched, 'key'> | undefined {
  const found = pending;
  pending = undefined;
  return found?.key === key ? found : undefined;
}
