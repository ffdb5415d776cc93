import { httpRef } from '../api/module.js';
import { defineModule, ref } from '../kernel/module.js';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import type { ServedModel } from '../registry/model-registry.js';
import { registryRef } from '../registry/module.js';
import { postModel } from './post-model.js';
import { postRoutes } from './post-routes.js';

export const contentRef = ref<ServedModel>('content');

/** The Post model the built-in roles act on, and a user's own posts' routes. */
export const contentModule = defineModule({
  name: 'content',
  phase: 'boot',
  needs: { registry: registryRef, http: httpRef },
  provides: contentRef,
  async start({ registry: { registry, objects }, http }) {
    const posts = await registry.register(normalizeModelDefinition(postModel, { kind: 'system' }), 'core');
    http.router.add(postRoutes(objects, posts));
    return posts;
  },
});
