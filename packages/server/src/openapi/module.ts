import { httpRef } from '../api/module.js';
import { defineModule, ref } from '../kernel/module.js';
import { registryRef } from '../registry/module.js';
import { HOST_VERSION } from '../version.js';
import { FRAMEWORK_ROUTES } from './framework-routes.js';
import { openApiRoutes } from './openapi-routes.js';
import { OpenApiDocuments } from './openapi-service.js';

export const openApiRef = ref<OpenApiDocuments>('openapi');

/** The OpenAPI documents of every model and route, and the `/docs` page, generated as they change. */
export const openApiModule = defineModule({
  name: 'openapi',
  phase: 'serve',
  needs: { registry: registryRef, http: httpRef },
  provides: openApiRef,
  start({ registry: { registry }, http: { router } }) {
    const documents = new OpenApiDocuments(registry, router, FRAMEWORK_ROUTES, HOST_VERSION);
    router.add(openApiRoutes(documents));
    return documents;
  },
});
